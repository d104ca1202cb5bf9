// Reading a whole text file that a user names (a scenario, a rate schedule, a key list) with the
// checks every such read needs before any work starts: it must be a regular file (not a
// directory, a device or a pipe that never ends) and no larger than the caller's bound.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace taillab {

// What is wrong with the file, without its name (the caller adds it): "is a directory, not a
// scenario file", "is not a regular file", "is 9 MiB; a scenario file may be at most 4 MiB",
// "cannot open: No such file or directory".
class TextFileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The bytes of `path`, at most `max_bytes` of them, or TextFileError. `what` names the kind of
// file in messages ("scenario file", "schedule").
std::string readTextFile(const std::string& path, std::size_t max_bytes, const std::string& what);

}  // namespace taillab
