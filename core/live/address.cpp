#include "live/address.h"

#include <arpa/inet.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace taillab::live {
namespace {

[[noreturn]] void fail(std::string_view what, std::string_view text, std::string_view why) {
    throw std::invalid_argument(std::string(what) + " '" + std::string(text) + "': " + std::string(why));
}

bool isIpv4(std::string_view s) {
    int parts = 0;
    while (true) {
        std::size_t n = 0;
        unsigned value = 0;
        while (n < s.size() && s[n] >= '0' && s[n] <= '9' && n < 4) value = value * 10 + (s[n++] - '0');
        if (n == 0 || n > 3 || value > 255) return false;
        ++parts;
        s.remove_prefix(n);
        if (s.empty()) return parts == 4;
        if (s.front() != '.' || parts == 4) return false;
        s.remove_prefix(1);
    }
}

std::string hostOf(std::string_view host, std::string_view what, std::string_view text) {
    if (host.empty() || host == "localhost") return "127.0.0.1";
    if (!isIpv4(host))
        fail(what, text, "the host must be a dotted IPv4 address or localhost, not '" + std::string(host) + "'");
    return std::string(host);
}

std::uint16_t portOf(std::string_view port, std::string_view what, std::string_view text) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || value > 65535)
        fail(what, text, "the port must be a number from 0 to 65535, not '" + std::string(port) + "'");
    return static_cast<std::uint16_t>(value);
}

}  // namespace

HostPort parseListen(std::string_view text) {
    constexpr std::string_view what = "listen address";
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return HostPort{"127.0.0.1", portOf(text, what, text)};
    return HostPort{hostOf(text.substr(0, colon), what, text), portOf(text.substr(colon + 1), what, text)};
}

bool isLoopback(const HostPort& at) {
    sockaddr_in a{};
    return socketAddress(at, a) && (ntohl(a.sin_addr.s_addr) >> 24) == 127;
}

Url parseUrl(std::string_view text) {
    constexpr std::string_view what = "URL";
    constexpr std::string_view scheme = "http://";
    if (text.substr(0, 8) == "https://") fail(what, text, "live mode speaks plain HTTP on loopback; use http://");
    if (text.substr(0, scheme.size()) != scheme) fail(what, text, "it must start with http://");
    std::string_view rest = text.substr(scheme.size());
    const std::size_t slash = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, slash);
    Url url;
    if (slash != std::string_view::npos) {
        const std::string_view target = rest.substr(slash);
        // RFC 3986's path and query characters: anything else (a space, a control byte, a
        // fragment) would break the request line or change its meaning.
        for (std::size_t i = 0; i < target.size(); ++i) {
            const auto c = static_cast<unsigned char>(target[i]);
            const bool allowed = std::isalnum(c) || std::string_view("-._~!$&'()*+,;=:@/?%").find(static_cast<char>(c)) !=
                                                        std::string_view::npos;
            if (!allowed || c >= 0x80) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02X", c);
                fail(what, text, "its path holds byte " + std::string(hex) + " at offset " +
                                     std::to_string(scheme.size() + slash + i) +
                                     ", which a URL path or query may not hold (percent-encode it)");
            }
        }
        url.target.clear();
        if (target.front() == '?') url.target.push_back('/');
        url.target.append(target.data(), target.size());
    }
    if (authority.find('@') != std::string_view::npos) fail(what, text, "a user name or password is not supported");
    if (authority.empty()) fail(what, text, "it names no host");
    const std::size_t colon = authority.rfind(':');
    if (colon == std::string_view::npos) {
        url.at = HostPort{hostOf(authority, what, text), 80};
    } else {
        url.at = HostPort{hostOf(authority.substr(0, colon), what, text),
                          portOf(authority.substr(colon + 1), what, text)};
        if (url.at.port == 0) fail(what, text, "port 0 cannot be called");
    }
    return url;
}

bool socketAddress(const HostPort& at, sockaddr_in& out) {
    const std::string host = at.host == "localhost" ? "127.0.0.1" : at.host;
    out = sockaddr_in{};
    out.sin_family = AF_INET;
    out.sin_port = htons(at.port);
    return ::inet_pton(AF_INET, host.c_str(), &out.sin_addr) == 1;
}

std::string toString(const HostPort& at) { return at.host + ":" + std::to_string(at.port); }

std::string toString(const Url& url) { return "http://" + toString(url.at) + url.target; }

}  // namespace taillab::live
