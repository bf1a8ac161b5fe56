// What Swift cannot call in libmicrohttpd: the variadic MHD_start_daemon,
// MHD_get_daemon_info and MHD_get_connection_info, the va_list logger, and the
// constants defined as casts. ReelStudioTests checks each against the raw value.
#ifndef REEL_CMICROHTTPD_SHIMS_H
#define REEL_CMICROHTTPD_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <microhttpd.h>

/// MHD_start_daemon bound to `host` (a numeric IPv4/IPv6 address or a name) and
/// `port` (0: any free port), thread per connection, with the given limits.
/// Returns NULL on failure; reel_mhd_last_error() then says why.
struct MHD_Daemon *reel_mhd_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler,
                                  void *handler_cls, MHD_RequestCompletedCallback completed,
                                  void *completed_cls, size_t connection_memory_limit,
                                  unsigned int connection_timeout_seconds, unsigned int connection_limit);
/// The port the daemon listens on (MHD_DAEMON_INFO_BIND_PORT), 0 if unknown.
uint16_t reel_mhd_bound_port(struct MHD_Daemon *daemon);
/// The client's numeric address (MHD_CONNECTION_INFO_CLIENT_ADDRESS) into `buffer`;
/// returns 0, or -1 when there is none.
int reel_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size);
/// The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), -1 if unknown.
int reel_mhd_connection_socket(struct MHD_Connection *connection);
/// Bytes written to `socket` that the peer has not yet acknowledged (ioctl SIOCOUTQ), -1 on error.
int reel_socket_unsent_bytes(int socket);
/// Caps the socket's send buffer at `bytes` and sends small writes at once (TCP_NODELAY);
/// returns 0, or -1 with errno.
int reel_socket_tune_for_streaming(int socket, int bytes);
/// The last message libmicrohttpd logged (or the start failure) on this thread.
const char *reel_mhd_last_error(void);
/// MHD_SIZE_UNKNOWN.
uint64_t reel_mhd_size_unknown(void);
/// MHD_CONTENT_READER_END_OF_STREAM.
ssize_t reel_mhd_end_of_stream(void);
/// MHD_CONTENT_READER_END_WITH_ERROR.
ssize_t reel_mhd_end_with_error(void);

#endif
