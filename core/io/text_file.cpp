#include "io/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace taillab {
namespace {

std::string sizeText(std::uintmax_t bytes) {
    if (bytes >= (1u << 20)) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (1u << 10)) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " bytes";
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
    if (size > max_bytes) throw TextFileError("is " + sizeText(size) + "; a " + what + " may be at most " + sizeText(max_bytes));
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
