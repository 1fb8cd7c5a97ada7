// libFuzzer's driver, declared weak: it is linked in only by `-sanitize=fuzzer` (Scripts/fuzz.sh). Without
// it the fuzz executables still link and replay the inputs named on their command line.
//
// Why not libFuzzer's own main(): SwiftPM links executables with `--defsym main=<module>_main` (so tests
// can link executable modules), which replaces libFuzzer's main. The Swift top-level code therefore hands
// control to libFuzzer through LLVMFuzzerRunDriver.

#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with their own main (compiler-rt FuzzerInterface.h).
__attribute__((weak)) int LLVMFuzzerRunDriver(
    int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

/// 1 when libFuzzer is linked in (a `-sanitize=fuzzer` build), 0 otherwise.
static inline int CLibFuzzerIsLinked(void) {
    return LLVMFuzzerRunDriver != NULL;
}

#endif
