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
#endif
