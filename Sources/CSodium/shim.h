// libsodium (Debian: libsodium-dev): argon2id password hashes, the OS's random bytes and constant-time comparison
// for `news serve`'s credentials (OfflineNewsServer).
#include <sodium.h>
