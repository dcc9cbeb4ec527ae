// tt_metal.hpp - host emulation of TT-Metalium (test harness): detail::TileSize.
#pragma once

#include <tt-metalium/host_api.hpp>

namespace tt::tt_metal::detail {
inline uint32_t TileSize(const tt::DataFormat &f) { return tt::tile_size(f); }
}  // namespace tt::tt_metal::detail
