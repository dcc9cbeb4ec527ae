// device.hpp - host emulation of TT-Metalium (test harness): the Device class.
#pragma once

#include <tt-metalium/host_api.hpp>
