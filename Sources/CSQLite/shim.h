#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot import.
static const sqlite3_destructor_type csqlite_transient = SQLITE_TRANSIENT;

// sqlite3_config is variadic, which Swift cannot call: one wrapper per option used.
static inline int csqlite_config_memstatus(int enabled) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, enabled); }
static inline int csqlite_config_stmtjrnl_spill(int bytes) { return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes); }
#endif
