// The socket side of the HTTP server and client (http_server.cpp, http_client.cpp, the only
// includers: Beast's parser is slow to compile): reading one message into a Beast parser from a
// non-blocking socket the loop watches edge-triggered, and writing bytes while the socket takes
// them.
#pragma once

#include <sys/socket.h>

#include <boost/beast/http/error.hpp>
#include <cerrno>
#include <cstddef>
#include <string_view>

#include "live/read_buffer.h"

namespace taillab::live {

enum class ReadOutcome {
    Whole,    // the parser holds a whole message (bytes after it stay in the buffer)
    Refused,  // the parser refused the bytes: `ec` says why
    End,      // the peer ended the stream before a whole message
    Blocked,  // nothing more to read now: the loop reports more
    Failed,   // the socket failed: `error` is its errno
};

// Feeds `parser` what `buffer` holds, reading from `fd` (at least `readSize` bytes at a time)
// while the socket may hold more, until one of the outcomes above. `readable` is whether bytes
// or an end may be waiting unread: a read that returns less than it asked for took all the bytes
// there were (more will be reported), and one that would block says so too. But once the loop
// has reported the peer's end (`peerClosed`), that end is still to be read after the bytes
// before it, and edge-triggered, it is never reported again: the socket stays readable until a
// read returns the end (or an error).
template <class Parser>
ReadOutcome readMessage(int fd, ReadBuffer& buffer, Parser& parser, std::size_t readSize, bool& readable,
                        bool peerClosed, boost::system::error_code& ec, int& error) {
    for (;;) {
        if (!buffer.empty()) {
            const std::string_view in = buffer.data();
            const std::size_t used = parser.put(boost::asio::const_buffer(in.data(), in.size()), ec);
            buffer.consume(used);
            if (!ec && parser.is_done()) return ReadOutcome::Whole;
            if (ec && ec != boost::beast::http::error::need_more) return ReadOutcome::Refused;
            const bool headerDone = !ec && used > 0;  // now the body, from what is left
            ec = {};
            if (headerDone) continue;
        }
        if (!readable) return ReadOutcome::Blocked;
        char* at = buffer.room(readSize);
        const std::size_t want = buffer.roomSize();
        const ssize_t n = ::recv(fd, at, want, 0);
        if (n > 0) {
            buffer.commit(static_cast<std::size_t>(n));
            if (static_cast<std::size_t>(n) < want && !peerClosed) readable = false;
            continue;
        }
        if (n == 0) return ReadOutcome::End;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            readable = false;
            return ReadOutcome::Blocked;
        }
        error = errno;
        return ReadOutcome::Failed;
    }
}

// Writes `bytes` from `sent` on while the socket takes them. 0 once all are written, EAGAIN
// when the socket is full (the loop reports room), else the errno of the failure.
inline int sendWhatFits(int fd, std::string_view bytes, std::size_t& sent) {
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return EAGAIN;
        return n < 0 ? errno : EPIPE;
    }
    return 0;
}

}  // namespace taillab::live
