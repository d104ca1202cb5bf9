#include "io/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace taillab {
namespace {

struct SizeUnit {
    std::uintmax_t bytes;
    const char* name;
};
constexpr SizeUnit kSizeUnits[] = {
    {std::uintmax_t{1} << 30, "GiB"}, {1u << 20, "MiB"}, {1u << 10, "KiB"}, {1, "bytes"}};

// A limit in the largest unit that divides it ("1 GiB", "4 MiB").
SizeUnit unitOf(std::uintmax_t limit) {
    for (const SizeUnit& u : kSizeUnits)
        if (limit >= u.bytes && limit % u.bytes == 0) return u;
    return kSizeUnits[3];
}

std::string inUnit(std::uintmax_t bytes, SizeUnit u) { return std::to_string(bytes / u.bytes) + " " + u.name; }

// A size above `limit`, in the limit's unit when that, rounded down, still shows it above ("is
// 9 MiB; ... at most 4 MiB"), else in bytes: rounded, one just over 1 GiB read as "is 1024 MiB;
// ... at most 1024 MiB", as if it were within the limit.
std::string overText(std::uintmax_t size, std::uintmax_t limit) {
    const SizeUnit u = unitOf(limit);
    return inUnit(size, size / u.bytes > limit / u.bytes ? u : kSizeUnits[3]);
}

}  // namespace

std::string readTextFile(const std::string& path, std::size_t max_bytes, const std::string& what) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec) throw TextFileError("cannot open: " + ec.message());
    if (std::filesystem::is_directory(status)) throw TextFileError("is a directory, not a " + what);
    if (!std::filesystem::is_regular_file(status)) throw TextFileError("is not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw TextFileError("cannot open: " + ec.message());
    if (size > max_bytes)
        throw TextFileError("is " + overText(size, max_bytes) + "; a " + what + " may be at most " +
                            inUnit(max_bytes, unitOf(max_bytes)));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TextFileError(std::string("cannot open: ") + std::strerror(errno));
    // One byte more than its size: a file that grew since its size was read is caught, not cut.
    std::string text(static_cast<std::size_t>(size) + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) throw TextFileError("cannot read the file");
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > size) throw TextFileError("changed while it was read: try again");
    return text;
}

}  // namespace taillab
