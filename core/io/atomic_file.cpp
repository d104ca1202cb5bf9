#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

namespace taillab {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& step, int error) {
    throw std::system_error(error, std::generic_category(),
                            "cannot write " + path + " (" + step + ")");
}

// A name no other writer uses: process id and a per-process counter, next to the target.
std::string temporaryName(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path p(path);
    std::string name = p.filename().string();
    name.insert(0, 1, '.');
    name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    return (p.parent_path() / name).string();
}

}  // namespace

namespace {

// The descriptor a name stands for when it names one of this process's own: /dev/stdout and
// /dev/stderr, /dev/fd/N, /proc/self/fd/N. Such a name is written through a copy of the
// descriptor, never followed: /proc's link leads to whatever the descriptor has open (a log that
// `>>` appends to), which a rename would replace and a fresh open would write from its start.
std::optional<int> ownDescriptor(const std::string& path) {
    if (path == "/dev/stdout") return 1;
    if (path == "/dev/stderr") return 2;
    const std::string prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/" + std::to_string(::getpid()) + "/fd/"};
    for (const std::string& prefix : prefixes) {
        if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
        int fd = 0;
        const char* first = path.data() + prefix.size();
        const auto [end, ec] = std::from_chars(first, path.data() + path.size(), fd);
        if (ec == std::errc() && end == path.data() + path.size()) return fd;
    }
    return std::nullopt;
}

}  // namespace

WriteTarget writeTarget(const std::string& path) {
    if (path.empty()) fail(path, "empty path", ENOENT);
    // Links are followed one at a time, so that a link to a file yet to be written leads to it
    // and a link to one of this process's descriptors is seen as one.
    std::filesystem::path p(path);
    for (int hops = 0;; ++hops) {
        if (const std::optional<int> fd = ownDescriptor(p.string())) return {p.string(), true, *fd};
        struct stat link {};
        if (::lstat(p.c_str(), &link) != 0) return {p.string(), false, std::nullopt};  // a new file
        if (!S_ISLNK(link.st_mode)) break;
        if (hops == 40) fail(path, "following its links", ELOOP);
        std::error_code ec;
        const std::filesystem::path next = std::filesystem::read_symlink(p, ec);
        if (ec) fail(path, "reading the link " + p.string(), ec.value());
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) fail(path, "looking at it", errno);
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory", EISDIR);
    if (S_ISSOCK(st.st_mode)) fail(path, "it is a socket", ENXIO);
    return {p.string(), !S_ISREG(st.st_mode), std::nullopt};
}

std::optional<std::string> writeProblem(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) return "is a directory (expected a file to write)";
    WriteTarget target;
    try {
        target = writeTarget(path);
    } catch (const std::system_error& e) {
        return std::string(e.what());
    }
    if (target.in_place) {
        // A device, a pipe or a FIFO: written to as it is, so it must open for writing. Opening a
        // FIFO without a reader would wait; access() does not.
        if (::access(target.path.c_str(), W_OK) != 0)
            return "cannot write it: " + std::string(std::strerror(errno));
        return std::nullopt;
    }
    const fs::path p(target.path);
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    const std::string dirName = dir.string();  // named: GCC 12 warns (-Wrestrict) on "'" + a temporary
    if (!fs::is_directory(dir, ec))
        return fs::exists(dir, ec) ? "'" + dirName + "' is not a directory"
                                   : "the directory '" + dirName + "' does not exist";
    // The same step the write begins with: a file created beside the target, then removed. Its
    // name is as long as the longest temporary the write may use (temporaryName: the target's
    // name, then ".tmp-PID-" and a counter of up to 10 digits), so a name too long for the
    // directory is found now, not after the work.
    const std::string name = p.filename().string();
    const fs::path probe = dir / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-p999999999");
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return "cannot write in '" + dirName + "': " + std::string(std::strerror(errno));
    ::close(fd);
    ::unlink(probe.c_str());
    return std::nullopt;
}

// Closes and removes the temporary unless it has been renamed into place. (Outside the anonymous
// namespace: AtomicFileWriter::Impl holds one.)
class Temporary {
public:
    explicit Temporary(std::string path) : path_(std::move(path)) {}
    ~Temporary() {
        if (fd_ >= 0) ::close(fd_);
        if (!renamed_) ::unlink(path_.c_str());
    }
    Temporary(const Temporary&) = delete;
    Temporary& operator=(const Temporary&) = delete;

    int& fd() { return fd_; }
    const std::string& path() const { return path_; }
    void markRenamed() { renamed_ = true; }

private:
    std::string path_;
    int fd_ = -1;
    bool renamed_ = false;
};

namespace {

// Flushes the temporary (open in tmp.fd()), closes it and renames it over `path`.
void flushAndRename(const std::string& path, Temporary& tmp) {
    if (::fsync(tmp.fd()) != 0) fail(path, "flushing to disk", errno);
    const int fd = tmp.fd();
    tmp.fd() = -1;
    if (::close(fd) != 0) fail(path, "closing", errno);
    if (::rename(tmp.path().c_str(), path.c_str()) != 0) fail(path, "renaming into place", errno);
    tmp.markRenamed();

    // The rename is durable once the directory is on disk too. Failing here changes nothing a
    // reader sees (the new file is in place), so it is not reported.
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dirFd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
}

// Opens what is written in place (a device, a pipe, a FIFO), without creating or truncating it.
int openInPlace(const WriteTarget& target) {
    const std::string& path = target.path;
    if (target.descriptor) {
        const int fd = ::fcntl(*target.descriptor, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) fail(path, "using descriptor " + std::to_string(*target.descriptor), errno);
        return fd;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) fail(path, "opening it", errno);
    return fd;
}

void writeAll(const std::string& path, int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(path, "writing", errno);
        done += static_cast<std::size_t>(n);
    }
}

// Gives a temporary the permission bits of the regular file it will replace, if there is one.
void keepPermissions(const std::string& path, int fd) {
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
        ::fchmod(fd, old.st_mode & 07777) != 0)
        fail(path, "copying its permissions", errno);
}

}  // namespace

struct AtomicFileWriter::Impl {
    explicit Impl(WriteTarget t)
        : target(t), path(std::move(t.path)), inPlace(t.in_place), tmp(temporaryName(path)) {}
    WriteTarget target;
    std::string path;
    bool inPlace;
    Temporary tmp;  // unused (and never created) when in place
    int inPlaceFd = -1;
    bool committed = false;
    ~Impl() {
        if (inPlaceFd >= 0) ::close(inPlaceFd);
    }
};

AtomicFileWriter::AtomicFileWriter(const std::string& path) {
    impl_ = std::make_unique<Impl>(writeTarget(path));
    if (impl_->inPlace) {
        impl_->tmp.markRenamed();  // nothing of ours to remove
        impl_->inPlaceFd = openInPlace(impl_->target);
        return;
    }
    Temporary& tmp = impl_->tmp;
    tmp.fd() = ::open(tmp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (tmp.fd() < 0) fail(impl_->path, "creating a temporary file", errno);
    keepPermissions(impl_->path, tmp.fd());
}

AtomicFileWriter::~AtomicFileWriter() = default;  // Temporary removes an uncommitted file

void AtomicFileWriter::append(std::string_view bytes) {
    if (impl_->committed) fail(impl_->path, "writing after the commit", EBADF);
    writeAll(impl_->path, impl_->inPlace ? impl_->inPlaceFd : impl_->tmp.fd(), bytes);
}

void AtomicFileWriter::commit() {
    if (impl_->committed) return;
    if (impl_->inPlace) {
        const int fd = impl_->inPlaceFd;
        impl_->inPlaceFd = -1;
        if (::close(fd) != 0) fail(impl_->path, "closing", errno);
    } else {
        flushAndRename(impl_->path, impl_->tmp);
    }
    impl_->committed = true;
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
    AtomicFileWriter file(path);
    file.append(bytes);
    file.commit();
}

void writeFileAtomicallyWith(const std::string& requested,
                             const std::function<bool(const std::string& temporary)>& write) {
    const WriteTarget target = writeTarget(requested);
    const std::string& path = target.path;
    if (target.in_place) {
        // The writer wants a file name: it fills a temporary in the system's temporary directory,
        // whose bytes are then copied to the target.
        std::error_code ec;
        const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
        Temporary tmp(temporaryName((ec ? std::filesystem::path("/tmp") : dir) / "taillab-export"));
        if (!write(tmp.path())) fail(path, "the writer failed", EIO);
        tmp.fd() = ::open(tmp.path().c_str(), O_RDONLY | O_CLOEXEC);
        if (tmp.fd() < 0) fail(path, "opening what the writer wrote", errno);
        const int out = openInPlace(target);
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::read(tmp.fd(), buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                const int error = errno;
                ::close(out);
                fail(path, "reading what the writer wrote", error);
            }
            if (n == 0) break;
            try {
                writeAll(path, out, std::string_view(buffer, static_cast<std::size_t>(n)));
            } catch (...) {
                ::close(out);
                throw;
            }
        }
        if (::close(out) != 0) fail(path, "closing", errno);
        return;
    }
    Temporary tmp(temporaryName(path));
    if (!write(tmp.path())) fail(path, "the writer failed", EIO);
    tmp.fd() = ::open(tmp.path().c_str(), O_WRONLY | O_CLOEXEC);
    if (tmp.fd() < 0) fail(path, "opening what the writer wrote", errno);
    keepPermissions(path, tmp.fd());
    flushAndRename(path, tmp);
}

}  // namespace taillab
