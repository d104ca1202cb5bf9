// What a call throws as std::invalid_argument, or "" when it throws nothing: the live tests'
// check that an input error names what is wrong.
#pragma once

#include <stdexcept>
#include <string>

namespace taillab::test {

std::string errorOf(auto&& fn) {
    try {
        fn();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace taillab::test
