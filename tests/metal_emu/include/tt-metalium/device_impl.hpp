// device_impl.hpp - host emulation of TT-Metalium (test harness): the Device class (the
// release's header name; device.hpp is the later one).
#pragma once

#include <tt-metalium/host_api.hpp>
