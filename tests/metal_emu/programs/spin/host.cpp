// host.cpp - test program: a kernel that spins on an L1 word outside the API's waits; the
// watchdog must still stop the run after EMU_WATCHDOG_SECONDS without progress and name
// the thread that does not wait.
#include <tt-metalium/host_api.hpp>

using namespace tt::tt_metal;

int main() {
    Device *device = CreateDevice(0);
    Program program = CreateProgram();
    CoreRange core({0, 0}, {0, 0});
    CreateSemaphore(program, core, 0);
    CreateKernel(program, "programs/spin/kernels/poll.cpp", core, DataMovementConfig{});
    EnqueueProgram(device->command_queue(), program, true);
    CloseDevice(device);
    return 0;
}
