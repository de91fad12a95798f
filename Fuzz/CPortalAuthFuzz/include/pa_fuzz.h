#ifndef PA_FUZZ_H
#define PA_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/// What a fuzz target checks with one input; returns 0.
typedef int (*pa_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver (LLVMFuzzerRunDriver) over `callback` with the command line's options,
/// when built with -sanitize=fuzzer and PA_FUZZING defined (scripts/fuzz.sh); otherwise says so
/// and returns 2.
int pa_fuzz_run(int argc, char **argv, pa_fuzz_callback callback);

#endif
