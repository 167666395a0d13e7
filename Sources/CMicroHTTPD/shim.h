// GNU libmicrohttpd (Debian: libmicrohttpd-dev), the HTTP/1.1 server `news serve` runs on (OfflineNewsMicroHTTPD).
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

// Swift cannot call C variadic functions (MHD_start_daemon, MHD_get_connection_info, MHD_get_daemon_info): these
// static inline wrappers pass the options OfflineNewsMicroHTTPD needs (systemLibrary modules import them).

/// Starts a daemon bound to `address` (a `struct sockaddr_in` or `sockaddr_in6`; add MHD_USE_IPv6 to `flags` for
/// the latter; a port of 0 binds any free port), calling `handler` for each request and `completed` when one ends.
/// `connection_limit` connections at once (`per_ip_limit` from one client address; 0: no such limit), `timeout`
/// seconds idle, `memory_limit` bytes of each connection's pool
/// (request line, header fields and the response's header fields; libmicrohttpd answers a larger request itself).
static inline struct MHD_Daemon *news_mhd_start(unsigned int flags, const struct sockaddr *address,
                                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                                MHD_RequestCompletedCallback completed, void *completed_cls,
                                                unsigned int connection_limit, unsigned int per_ip_limit,
                                                unsigned int timeout,
                                                size_t memory_limit) {
  uint16_t port = 0;
  if (address->sa_family == AF_INET6) {
    port = ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
  } else {
    port = ntohs(((const struct sockaddr_in *)address)->sin_port);
  }
  return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                          MHD_OPTION_SOCK_ADDR, address,
                          MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                          MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                          MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                          MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                          MHD_OPTION_END);
}

/// The port `daemon` listens on (the one the system chose for port 0), or 0 when it cannot say.
static inline uint16_t news_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/// Writes the numeric text of the peer's address of `connection` (`127.0.0.1`, `::1`) into `buffer` (at least
/// INET6_ADDRSTRLEN bytes); an empty string when it is unknown.
static inline void news_mhd_peer_address(struct MHD_Connection *connection, char *buffer, size_t size) {
  buffer[0] = '\0';
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size);
  } else if (address->sa_family == AF_INET6) {
    const struct in6_addr *v6 = &((const struct sockaddr_in6 *)address)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(v6)) {
      inet_ntop(AF_INET, &v6->s6_addr[12], buffer, (socklen_t)size);
    } else {
      inet_ntop(AF_INET6, v6, buffer, (socklen_t)size);
    }
  }
}
