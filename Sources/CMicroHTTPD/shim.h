// GNU libmicrohttpd (Debian: libmicrohttpd-dev), the HTTP/1.1 server `news serve` runs on (OfflineNewsMicroHTTPD).
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
