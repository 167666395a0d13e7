#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// The system libxml2 (Debian: libxml2-dev; http://xmlsoft.org/html/): the XML parser with recover mode and
// encoding support, and the HTML parser (htmlReadMemory). Include path: pkg-config libxml-2.0 (/usr/include/libxml2).
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/xmlsave.h>
#include <libxml/uri.h>
#endif
