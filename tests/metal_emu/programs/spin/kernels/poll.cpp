// poll.cpp - test program kernel (watchdog): polls its semaphore by hand, outside the
// API's waits, for a value that nobody writes.
#include <cstdint>

#include "dataflow_api.h"

void kernel_main() {
    volatile tt_l1_ptr uint32_t *sem = reinterpret_cast<volatile tt_l1_ptr uint32_t *>(get_semaphore(0));
    while (*sem != 1) {
    }
}
