// Writing a file so that a reader (or a crash) sees either the old contents or the new ones,
// never a half-written file: the bytes go to a temporary file in the same directory, are flushed
// to the disk, and the temporary is renamed over the target, which POSIX makes atomic.
//
// What is not a regular file is written to, never replaced: a device (/dev/null), a pipe or a
// FIFO gets the bytes as they come, since a rename over it would put a plain file in its place
// (as root, in /dev). A name for one of this process's descriptors (/dev/stdout, a shell's
// >(...) as /dev/fd/63) is written through that descriptor, whatever it has open: a log that
// `>>` appends to is appended to. A symbolic link is followed: its target is replaced (or
// created) and the link stays a link. A directory or a socket is an error.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace taillab {

// Where a write of `path` goes: the regular file to replace (a link's target, made absolute), or
// something else that exists and is written to in place (`in_place`). A directory is an error
// (std::system_error, EISDIR).
struct WriteTarget {
    std::string path;
    bool in_place = false;
    std::optional<int> descriptor;  // in place through this process's own descriptor (/dev/stdout)
};
WriteTarget writeTarget(const std::string& path);

// Why a write of `path` would fail before a byte is written ("the directory '/x' does not
// exist", "is a directory (expected a file to write)", "cannot write in 'd': Permission denied"),
// or nullopt when it can begin: called before the work, so that a mistyped output path costs
// nothing. It creates and removes a file beside the target, as the write would.
std::optional<std::string> writeProblem(const std::string& path);

// Replaces (or creates) `path` with `bytes`. An existing file keeps its permission bits; a new one
// gets 0666 less the umask, as any file would. On any failure the temporary is removed, the old
// file is left as it was, and std::system_error (a std::runtime_error) names the path, the step
// and the OS error.
void writeFileAtomically(const std::string& path, std::string_view bytes);

// The same for bytes that come in parts over time (an interval log written as a run goes): each
// part goes to the temporary as it comes, so memory stays flat, and commit() flushes and renames
// it into place. Destroyed before commit() (an error, a crash of the caller's work), the temporary
// is removed and the target left as it was. Each call throws std::system_error as above.
class AtomicFileWriter {
public:
    explicit AtomicFileWriter(const std::string& path);  // creates the temporary
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void append(std::string_view bytes);
    void commit();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The same for a writer that takes a file name (a PDF printer, an image writer): `write` fills
// the temporary file it is given and returns whether it succeeded. When it returns false the
// temporary is removed, the old file is kept, and std::system_error names the path ("the
// writer failed"); otherwise the temporary is flushed and renamed into place.
void writeFileAtomicallyWith(const std::string& path,
                             const std::function<bool(const std::string& temporary)>& write);

}  // namespace taillab
