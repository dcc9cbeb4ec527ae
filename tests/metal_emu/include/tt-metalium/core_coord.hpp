// core_coord.hpp - host emulation of TT-Metalium (test harness): CoreCoord, CoreRange and
// CoreRangeSet, the logical core coordinates that programs place kernels, CBs and
// semaphores on.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <set>
#include <vector>

struct CoreCoord {
    std::size_t x = 0;
    std::size_t y = 0;
    constexpr CoreCoord() = default;
    constexpr CoreCoord(std::size_t x_, std::size_t y_) : x(x_), y(y_) {}
    bool operator==(const CoreCoord &o) const { return x == o.x && y == o.y; }
    bool operator!=(const CoreCoord &o) const { return !(*this == o); }
    bool operator<(const CoreCoord &o) const { return y < o.y || (y == o.y && x < o.x); }
};

class CoreRange {
public:
    CoreCoord start_coord;
    CoreCoord end_coord;
    CoreRange(const CoreCoord &point) : start_coord(point), end_coord(point) {}
    CoreRange(const CoreCoord &start, const CoreCoord &end) : start_coord(start), end_coord(end) {}
    bool contains(const CoreCoord &c) const {
        return c.x >= start_coord.x && c.x <= end_coord.x && c.y >= start_coord.y && c.y <= end_coord.y;
    }
    std::size_t size() const { return (end_coord.x - start_coord.x + 1) * (end_coord.y - start_coord.y + 1); }
    CoreCoord grid_size() const { return {end_coord.x - start_coord.x + 1, end_coord.y - start_coord.y + 1}; }
    bool operator<(const CoreRange &o) const {
        if (start_coord != o.start_coord) return start_coord < o.start_coord;
        return end_coord < o.end_coord;
    }
    bool operator==(const CoreRange &o) const { return start_coord == o.start_coord && end_coord == o.end_coord; }
};

class CoreRangeSet {
public:
    CoreRangeSet() = default;
    CoreRangeSet(const CoreRange &r) { ranges_.push_back(r); }
    CoreRangeSet(const std::set<CoreRange> &rs) : ranges_(rs.begin(), rs.end()) {}
    CoreRangeSet(const std::vector<CoreRange> &rs) : ranges_(rs) {}
    CoreRangeSet(std::initializer_list<CoreRange> rs) : ranges_(rs) {}
    const std::vector<CoreRange> &ranges() const { return ranges_; }
    bool contains(const CoreCoord &c) const {
        for (const auto &r : ranges_)
            if (r.contains(c)) return true;
        return false;
    }
    std::size_t num_cores() const {
        std::set<CoreCoord> s;
        for (const auto &r : ranges_)
            for (std::size_t y = r.start_coord.y; y <= r.end_coord.y; y++)
                for (std::size_t x = r.start_coord.x; x <= r.end_coord.x; x++) s.insert({x, y});
        return s.size();
    }

private:
    std::vector<CoreRange> ranges_;
};
