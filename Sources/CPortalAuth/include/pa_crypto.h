#ifndef PA_CRYPTO_H
#define PA_CRYPTO_H
/* placeholder: filled in by its owner */
#endif
