#ifndef PA_SECRET_H
#define PA_SECRET_H
/* placeholder: filled in by its owner */
#endif
