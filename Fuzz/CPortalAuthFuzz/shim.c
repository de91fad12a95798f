#include "pa_fuzz.h"

#include <stdio.h>

#ifdef PA_FUZZING
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif

int pa_fuzz_run(int argc, char **argv, pa_fuzz_callback callback) {
#ifdef PA_FUZZING
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
#else
    (void)argc;
    (void)argv;
    (void)callback;
    fputs("this fuzz target was built without libFuzzer: run it through scripts/fuzz.sh\n", stderr);
    return 2;
#endif
}
