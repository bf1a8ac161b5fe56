// libmicrohttpd's header, for ReelHTTP (the only module holding its pointers).
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
