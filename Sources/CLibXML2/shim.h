// The parts of the system's libxml2 that VAST reads documents with: the streaming reader
// (xmlTextReader), and the one set of parser options every document is read under.
#ifndef SECURE_SIGNALS_CLIBXML2_SHIM_H
#define SECURE_SIGNALS_CLIBXML2_SHIM_H

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
