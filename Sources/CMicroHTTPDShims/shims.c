#include "CMicroHTTPDShims.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>

static _Thread_local char last_error[512];

static void reel_mhd_logger(void *cls, const char *format, va_list arguments) {
    (void)cls;
    vsnprintf(last_error, sizeof last_error, format, arguments);
    size_t n = strlen(last_error);
    while (n > 0 && (last_error[n - 1] == '\n' || last_error[n - 1] == ' ')) last_error[--n] = 0;
}

const char *reel_mhd_last_error(void) { return last_error; }

struct MHD_Daemon *reel_mhd_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler,
                                  void *handler_cls, MHD_RequestCompletedCallback completed,
                                  void *completed_cls, size_t connection_memory_limit,
                                  unsigned int connection_timeout_seconds, unsigned int connection_limit) {
    last_error[0] = 0;
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)port);
    struct addrinfo *found = NULL;
    int status = getaddrinfo(host, service, &hints, &found);
    if (status != 0 || found == NULL) {
        snprintf(last_error, sizeof last_error, "cannot resolve the address: %s", gai_strerror(status));
        return NULL;
    }
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (found->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    memcpy(&address, found->ai_addr, found->ai_addrlen);
    freeaddrinfo(found);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_EXTERNAL_LOGGER, reel_mhd_logger, NULL,
        MHD_OPTION_END);
    if (daemon == NULL && last_error[0] == 0) {
        snprintf(last_error, sizeof last_error, "cannot listen on %s port %u: %s", host, (unsigned)port, strerror(errno));
    }
    return daemon;
}

uint16_t reel_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int reel_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    socklen_t length = address->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (getnameinfo(address, length, buffer, (socklen_t)size, NULL, 0, NI_NUMERICHOST) != 0) return -1;
    return 0;
}

uint64_t reel_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
ssize_t reel_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
ssize_t reel_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

int reel_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

int reel_socket_unsent_bytes(int socket) {
    int pending = 0;
    if (ioctl(socket, SIOCOUTQ, &pending) != 0) return -1;
    return pending;
}

int reel_socket_tune_for_streaming(int socket, int bytes) {
    int one = 1;
    if (setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes) != 0) return -1;
    return setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}
