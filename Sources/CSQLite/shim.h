#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot import.
static const sqlite3_destructor_type csqlite_transient = SQLITE_TRANSIENT;
#endif
