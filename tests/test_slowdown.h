// Hang guards, not speed limits: how long a wait may last before a test calls it stuck. A
// sanitizer build runs the same work many times slower (TSan: the July incident board's seek
// took 84 s alone and 276 s beside another GUI test under CI's ctest -j2, against 1.5 s in a
// release build), so its guards are TAILLAB_TEST_SLOWDOWN times as long (tests/CMakeLists.txt
// sets it for the UI and live tests of sanitizer builds).
#pragma once

#ifndef TAILLAB_TEST_SLOWDOWN
#define TAILLAB_TEST_SLOWDOWN 1
#endif

namespace taillab::test {
constexpr int kSlowdown = TAILLAB_TEST_SLOWDOWN;
}  // namespace taillab::test
