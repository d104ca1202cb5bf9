// The bytes read from a connection and not yet parsed, for the HTTP server and client: read into
// the room after them, consumed from the front. Compacts rather than grows while the bytes kept
// fit, so a keep-alive connection settles on one allocation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

namespace taillab::live {

class ReadBuffer {
public:
    std::string_view data() const { return {buf_.data() + begin_, end_ - begin_}; }
    std::size_t size() const { return end_ - begin_; }
    bool empty() const { return begin_ == end_; }
    void consume(std::size_t n) {
        begin_ += n;
        if (begin_ == end_) begin_ = end_ = 0;
    }
    // Room for at least `min` more bytes after the data (all the room there is, maybe more).
    char* room(std::size_t min) {
        if (buf_.size() - end_ < min) {
            if (begin_ > 0) {
                std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
                end_ -= begin_;
                begin_ = 0;
            }
            if (buf_.size() - end_ < min) buf_.resize(std::max(end_ + min, 2 * buf_.size()));
        }
        return buf_.data() + end_;
    }
    std::size_t roomSize() const { return buf_.size() - end_; }
    void commit(std::size_t n) { end_ += n; }

private:
    std::vector<char> buf_;
    std::size_t begin_ = 0, end_ = 0;
};

}  // namespace taillab::live
