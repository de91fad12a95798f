/* front.c's own header, for its `#include "pa_front.h"` when front_fuzz.c compiles it. */
#include "../../../Sources/CPortalAuthFront/include/pa_front.h"
