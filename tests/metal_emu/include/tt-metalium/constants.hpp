// constants.hpp - host emulation of TT-Metalium (test harness): tile geometry constants.
#pragma once

#include <cstdint>

namespace tt::constants {
constexpr uint32_t TILE_HEIGHT = 32;
constexpr uint32_t TILE_WIDTH = 32;
constexpr uint32_t TILE_HW = TILE_HEIGHT * TILE_WIDTH;
constexpr uint32_t FACE_HEIGHT = 16;
constexpr uint32_t FACE_WIDTH = 16;
}  // namespace tt::constants
