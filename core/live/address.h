// Where live mode listens and what it calls: "HOST:PORT" for --listen, and "http://HOST:PORT/PATH"
// for upstream engines and the load generator's target. Only plain HTTP on numeric IPv4
// addresses or "localhost": live mode runs on loopback, and a name that needs a resolver is
// refused with a message rather than looked up.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace taillab::live {

struct HostPort {
    std::string host;        // dotted IPv4 ("localhost" is read as 127.0.0.1)
    std::uint16_t port = 0;  // 0 for --listen: the system picks a free port
    bool operator==(const HostPort&) const = default;
};

struct Url {
    HostPort at;
    std::string target = "/";  // path and query, always starting with '/'
    bool operator==(const Url&) const = default;
};

// "127.0.0.1:8080", "localhost:0", ":8080" (127.0.0.1), "8080" (127.0.0.1). Throws
// std::invalid_argument naming the text and what is wrong with it.
HostPort parseListen(std::string_view text);

// "http://127.0.0.1:8081/search". The port defaults to 80; the path to "/". Throws
// std::invalid_argument naming the text and what is wrong with it (https, a user name, a
// host name other than localhost, a bad port).
Url parseUrl(std::string_view text);

// Whether `at` listens on loopback only (127.0.0.0/8): anything else (0.0.0.0, a LAN address)
// is reachable from the network.
bool isLoopback(const HostPort& at);

// The socket address of `at` ("localhost" read as 127.0.0.1), for the server's bind and the
// client's connect; false when its host is not a dotted IPv4 address.
bool socketAddress(const HostPort& at, sockaddr_in& out);

// "127.0.0.1:8080" and "http://127.0.0.1:8080/search", for messages and logs.
std::string toString(const HostPort& at);
std::string toString(const Url& url);

}  // namespace taillab::live
