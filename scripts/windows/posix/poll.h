/* See posix-shim.h: b2check includes poll.h for its forked children only. */
#ifndef _WIN32
#include_next <poll.h>
#endif
