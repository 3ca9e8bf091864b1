// The parts of the system's libxml2 that VAST reads documents with: the streaming reader
// (xmlTextReader), and the one set of parser options every document is read under.
#ifndef SECURE_SIGNALS_CLIBXML2_SHIM_H
#define SECURE_SIGNALS_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU, so its encoding.h includes the system's <unicode/ucnv.h>. A
// Swift module that sees this module and Foundation's _FoundationICU (a test importing both)
// then holds two different `UErrorCode`s and fails to build. Nothing here converts encodings
// with ICU: besides that include, the macro adds only the `uconv_t` type, ICU_PIVOT_BUF_SIZE and
// two pointer fields at the end of xmlCharEncodingHandler, a struct this package never
// allocates or reads (libxml2 uses it only through pointers).
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

/// A hostile ad server's document reaches nothing: no network (XML_PARSE_NONET), no entity
/// expansion (XML_PARSE_NOENT is absent: a reference stays a reference, so neither an entity
/// bomb nor an external entity is ever expanded), no external DTD loaded (XML_PARSE_DTDLOAD,
/// XML_PARSE_DTDATTR and XML_PARSE_DTDVALID are absent), libxml2's own limits kept
/// (XML_PARSE_HUGE is absent), and nothing printed to stderr.
static const int ss_xml_read_options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;

#endif
