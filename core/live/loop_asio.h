// The Asio side of Loop, for the .cpp files that open sockets on it. Not for other headers:
// Asio and Beast are slow to compile, so they stay in as few translation units as possible.
#pragma once

#include <boost/asio/io_context.hpp>

#include "live/loop.h"

namespace taillab::live {

boost::asio::io_context& ioContext(Loop& loop);

}  // namespace taillab::live
