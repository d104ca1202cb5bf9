// Writing a file so that a reader (or a crash) sees either the old contents or the new ones,
// never a half-written file: the bytes go to a temporary file in the same directory, are flushed
// to the disk, and the temporary is renamed over the target, which POSIX makes atomic.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace taillab {

// Replaces (or creates) `path` with `bytes`. An existing file keeps its permission bits; a new one
// gets 0666 less the umask, as any file would. On any failure the temporary is removed, the old
// file is left as it was, and std::system_error (a std::runtime_error) names the path, the step
// and the OS error.
void writeFileAtomically(const std::string& path, std::string_view bytes);

// The same for a writer that takes a file name (a PDF printer, an image writer): `write` fills
// the temporary file it is given and returns whether it succeeded. When it returns false the
// temporary is removed, the old file is kept, and std::system_error names the path ("the
// writer failed"); otherwise the temporary is flushed and renamed into place.
void writeFileAtomicallyWith(const std::string& path,
                             const std::function<bool(const std::string& temporary)>& write);

}  // namespace taillab
