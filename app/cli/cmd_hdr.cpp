// PLACEHOLDER: replaced by the real hdr command. Must not be committed.
#include "commands.h"

namespace taillab::cli {
int cmdHdr(const std::vector<std::string>&) { throw UsageError{"not yet"}; }
}  // namespace taillab::cli
