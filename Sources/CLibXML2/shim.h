#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// The system libxml2 (Debian: libxml2-dev; http://xmlsoft.org/html/): the XML parser with recover mode and
// encoding support, the HTML parser (htmlReadMemory), and the SAX2 tree builder's callbacks (SAX2.h) that
// OfflineNewsFeeds wraps. Include path: pkg-config libxml-2.0 (/usr/include/libxml2).
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, so encoding.h includes the system's <unicode/ucnv.h>, whose UErrorCode
// clashes with the ICU inside Foundation (_FoundationICU) in any Swift file that imports both. Swift needs none of
// libxml2's ICU declarations: without them, xmlCharEncodingHandler is seen without its two trailing ICU pointers,
// which is harmless because Swift only ever holds pointers to handlers that libxml2 allocates.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/xmlsave.h>
#include <libxml/uri.h>
#include <libxml/SAX2.h>
#include <libxml/entities.h>

/// xmlFree is a global function pointer (xmlMemSetup can change it), which Swift 6 cannot read without a data-race
/// warning: frees memory libxml2 returned (xmlGetProp, xmlNodeGetContent, xmlBuildURI…).
static inline void clibxml2_free(void *pointer) { xmlFree(pointer); }

/// Parser options stop the messages of a parser context; conversion errors (a page whose bytes are not in its
/// declared encoding) go to the thread's generic error handler. These swap in a silent one around a parse and put
/// the previous one back (libxml2 keeps the handler per thread).
static inline void clibxml2_silent_error(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}
typedef struct {
  xmlGenericErrorFunc handler;
  void *context;
} clibxml2_error_handler;
static inline clibxml2_error_handler clibxml2_silence_errors(void) {
  clibxml2_error_handler previous = {xmlGenericError, xmlGenericErrorContext};
  xmlSetGenericErrorFunc(NULL, clibxml2_silent_error);
  return previous;
}
static inline void clibxml2_restore_errors(clibxml2_error_handler previous) {
  xmlSetGenericErrorFunc(previous.context, previous.handler);
}
#endif
