#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// The system libxml2 (Debian: libxml2-dev; http://xmlsoft.org/html/): the XML parser with recover mode and
// encoding support, and the HTML parser (htmlReadMemory). Include path: pkg-config libxml-2.0 (/usr/include/libxml2).
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, and encoding.h then includes the system's <unicode/ucnv.h>, whose UErrorCode
// clashes with Foundation's own ICU ("has different definitions in different modules") in any Swift file importing
// both. Only the layout of xmlCharEncodingHandler depends on it, which Swift code never allocates or reads.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/xmlsave.h>
#include <libxml/uri.h>

/// xmlFree is a global function pointer (xmlMemSetup can change it), which Swift 6 cannot read without a data-race
/// warning: frees memory libxml2 returned (xmlGetProp, xmlNodeGetContent, xmlBuildURI…).
static inline void clibxml2_free(void *pointer) { xmlFree(pointer); }
#endif
