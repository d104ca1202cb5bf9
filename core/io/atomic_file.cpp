#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
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

}  // namespace

struct AtomicFileWriter::Impl {
    explicit Impl(const std::string& p) : path(p), tmp(temporaryName(p)) {}
    std::string path;
    Temporary tmp;
    bool committed = false;
};

AtomicFileWriter::AtomicFileWriter(const std::string& path) {
    if (path.empty()) fail(path, "empty path", ENOENT);
    impl_ = std::make_unique<Impl>(path);
    Temporary& tmp = impl_->tmp;
    tmp.fd() = ::open(tmp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (tmp.fd() < 0) fail(path, "creating a temporary file", errno);
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
        ::fchmod(tmp.fd(), old.st_mode & 07777) != 0)
        fail(path, "copying its permissions", errno);
}

AtomicFileWriter::~AtomicFileWriter() = default;  // Temporary removes an uncommitted file

void AtomicFileWriter::append(std::string_view bytes) {
    if (impl_->committed) fail(impl_->path, "writing after the commit", EBADF);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(impl_->tmp.fd(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(impl_->path, "writing", errno);
        done += static_cast<std::size_t>(n);
    }
}

void AtomicFileWriter::commit() {
    if (impl_->committed) return;
    flushAndRename(impl_->path, impl_->tmp);
    impl_->committed = true;
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
    AtomicFileWriter file(path);
    file.append(bytes);
    file.commit();
}

void writeFileAtomicallyWith(const std::string& path,
                             const std::function<bool(const std::string& temporary)>& write) {
    if (path.empty()) fail(path, "empty path", ENOENT);
    Temporary tmp(temporaryName(path));
    if (!write(tmp.path())) fail(path, "the writer failed", EIO);
    tmp.fd() = ::open(tmp.path().c_str(), O_WRONLY | O_CLOEXEC);
    if (tmp.fd() < 0) fail(path, "opening what the writer wrote", errno);
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
        ::fchmod(tmp.fd(), old.st_mode & 07777) != 0)
        fail(path, "copying its permissions", errno);
    flushAndRename(path, tmp);
}

}  // namespace taillab
