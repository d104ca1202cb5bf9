// Loaded with LD_PRELOAD into a proxy (taillab-cli serve, nginx) by tests/bench/live_hops.sh: it
// times the proxy's socket calls, so the time the proxy itself holds a request can be read off
// the wire with no tracer in the way (a traced syscall takes 10-30 us here, more than the times
// being measured). Each call to accept, accept4, connect, recv, recvfrom, recvmsg, readv, read,
// send, sendto, sendmsg, writev and write is logged with its start and end (CLOCK_MONOTONIC,
// about 30 ns a read through the vDSO), its file descriptor and its result; each epoll_wait,
// epoll_pwait and epoll_pwait2 with its timeout in place of the descriptor, so the reader can
// tell when the proxy went back to sleep. Calls on other
// descriptors (files, eventfds) are logged too; the reader keeps those on sockets it saw
// accepted or connected. The log is kept in memory and written at exit to $HOP_LOG.PID; a
// process that forks after loading (nginx's workers) writes its own file. HOP_LOG is read at
// load time, as nginx's workers start with an environment of their own.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { kRecv = 1, kSend = 2, kAccept = 3, kConnect = 4, kWait = 5 };
typedef struct {
    int64_t start_ns, end_ns;
    int32_t kind, fd;
    int64_t result;
} HopEvent;

enum { kCapacity = 4 << 20 };  // 4M calls (128 MiB of address space, touched as used)
static HopEvent* events;
static atomic_long count;
static char path[512];

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void log_call(int kind, int fd, int64_t start, int64_t result) {
    if (!events) return;
    const long i = atomic_fetch_add(&count, 1);
    if (i >= kCapacity) return;
    events[i] = (HopEvent){start, now_ns(), kind, fd, result};
}

__attribute__((constructor)) static void hop_start(void) {
    const char* p = getenv("HOP_LOG");
    if (!p || strlen(p) >= sizeof path - 16) return;
    strcpy(path, p);
    events = calloc(kCapacity, sizeof(HopEvent));
}

__attribute__((destructor)) static void hop_write(void) {
    if (!events) return;
    char name[sizeof path + 16];
    snprintf(name, sizeof name, "%s.%d", path, (int)getpid());
    const int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    long n = atomic_load(&count);
    if (n > kCapacity) n = kCapacity;
    const char* p = (const char*)events;
    size_t left = (size_t)n * sizeof(HopEvent);
    while (left > 0) {
        const ssize_t w = syscall(SYS_write, fd, p, left);  // not through the wrapped write()
        if (w <= 0) break;
        p += w;
        left -= (size_t)w;
    }
    close(fd);
}

// One wrapper per call: the real function found once, the call timed and logged. The result is
// logged as the call returned it (a new descriptor for accept, -1 on failure).
#define HOP_WRAP(ret_t, name, kind, params, args, fd_logged)             \
    ret_t name params {                                                  \
        static ret_t(*real) params;                                      \
        if (!real) real = (ret_t(*) params)dlsym(RTLD_NEXT, #name);      \
        const int64_t start = now_ns();                                  \
        const ret_t r = real args;                                       \
        log_call(kind, fd_logged, start, (int64_t)r);                    \
        return r;                                                        \
    }

HOP_WRAP(int, accept, kAccept, (int fd, struct sockaddr* a, socklen_t* l), (fd, a, l), (int)r)
HOP_WRAP(int, accept4, kAccept, (int fd, struct sockaddr* a, socklen_t* l, int f), (fd, a, l, f), (int)r)
HOP_WRAP(int, connect, kConnect, (int fd, const struct sockaddr* a, socklen_t l), (fd, a, l), fd)
HOP_WRAP(ssize_t, recv, kRecv, (int fd, void* b, size_t l, int f), (fd, b, l, f), fd)
HOP_WRAP(ssize_t, recvfrom, kRecv, (int fd, void* b, size_t l, int f, struct sockaddr* a, socklen_t* al),
         (fd, b, l, f, a, al), fd)
HOP_WRAP(ssize_t, recvmsg, kRecv, (int fd, struct msghdr* m, int f), (fd, m, f), fd)
HOP_WRAP(ssize_t, readv, kRecv, (int fd, const struct iovec* v, int c), (fd, v, c), fd)
HOP_WRAP(ssize_t, read, kRecv, (int fd, void* b, size_t l), (fd, b, l), fd)
HOP_WRAP(ssize_t, send, kSend, (int fd, const void* b, size_t l, int f), (fd, b, l, f), fd)
HOP_WRAP(ssize_t, sendto, kSend, (int fd, const void* b, size_t l, int f, const struct sockaddr* a, socklen_t al),
         (fd, b, l, f, a, al), fd)
HOP_WRAP(ssize_t, sendmsg, kSend, (int fd, const struct msghdr* m, int f), (fd, m, f), fd)
HOP_WRAP(ssize_t, writev, kSend, (int fd, const struct iovec* v, int c), (fd, v, c), fd)
HOP_WRAP(ssize_t, write, kSend, (int fd, const void* b, size_t l), (fd, b, l), fd)
HOP_WRAP(int, epoll_wait, kWait, (int fd, struct epoll_event* e, int m, int t), (fd, e, m, t), t)
HOP_WRAP(int, epoll_pwait, kWait, (int fd, struct epoll_event* e, int m, int t, const sigset_t* s), (fd, e, m, t, s), t)
// Its timeout in whole milliseconds as the others log theirs, any wait above zero at least 1 (so
// a short timed wait still reads as one that may block), none as -1.
static int timeout_ms(const struct timespec* t) {
    if (!t) return -1;
    if (t->tv_sec == 0 && t->tv_nsec == 0) return 0;
    const int64_t ms = (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000;
    return ms < 1 ? 1 : (int)ms;
}
HOP_WRAP(int, epoll_pwait2, kWait,
         (int fd, struct epoll_event* e, int m, const struct timespec* t, const sigset_t* s), (fd, e, m, t, s),
         timeout_ms(t))
