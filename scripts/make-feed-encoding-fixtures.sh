#!/bin/sh
# Writes Tests/Fixtures/feeds/encodings/*.xml: one small RSS 2.0 feed per character encoding, made from UTF-8 text
# with iconv, for OfflineNewsFeedsTests/EncodingTests. Run from the package root; the files are committed.
set -eu
out=Tests/Fixtures/feeds/encodings
mkdir -p "$out"

# feed NAME ENCODING-LABEL ICONV-CHARSET TEXT: the XML declaration says LABEL; the bytes are TEXT in CHARSET.
feed() {
  printf '<?xml version="1.0" encoding="%s"?>\n<rss version="2.0"><channel><title>%s</title><link>https://example.org/</link>\n<item><title>%s</title><link>https://example.org/1</link><description>%s</description></item>\n</channel></rss>\n' \
    "$2" "$4" "$4" "$4" | iconv -f UTF-8 -t "$3" > "$out/$1.xml"
}

feed iso-8859-1   ISO-8859-1   ISO-8859-1   'Café à la crème, naïve façade'
feed iso-8859-2   ISO-8859-2   ISO-8859-2   'Příliš žluťoučký kůň úpěl ďábelské ódy'
feed iso-8859-5   ISO-8859-5   ISO-8859-5   'Съешь же ещё этих мягких булок'
feed iso-8859-7   ISO-8859-7   ISO-8859-7   'Καλημέρα κόσμε'
feed iso-8859-15  ISO-8859-15  ISO-8859-15  'Prix : 10 € pour une œuvre'
feed windows-1250 windows-1250 WINDOWS-1250 'Zażółć gęślą jaźń'
feed windows-1251 windows-1251 WINDOWS-1251 'Привет, мир'
feed windows-1252 windows-1252 WINDOWS-1252 '“Smart quotes” cost 5 € – ok'
feed windows-1253 windows-1253 WINDOWS-1253 'Ελληνικά γράμματα'
feed windows-1256 windows-1256 WINDOWS-1256 'مرحبا بالعالم'
feed koi8-r       KOI8-R       KOI8-R       'Привет, мир'
feed gb2312       GB2312       GB2312       '你好，世界'
feed gbk          GBK          GBK          '我們的世界'
feed shift_jis    Shift_JIS    SHIFT_JIS    'こんにちは世界'
feed euc-jp       EUC-JP       EUC-JP       'こんにちは世界'
feed euc-kr       EUC-KR       EUC-KR       '안녕하세요 세계'
feed utf-16le-bom UTF-16       UTF-16LE     'Grüße, 你好, Привет'
feed utf-16be-bom UTF-16       UTF-16BE     'Grüße, 你好, Привет'
# The byte order marks iconv does not write for UTF-16LE/BE.
{ printf '\377\376'; cat "$out/utf-16le-bom.xml"; } > "$out/tmp" && mv "$out/tmp" "$out/utf-16le-bom.xml"
{ printf '\376\377'; cat "$out/utf-16be-bom.xml"; } > "$out/tmp" && mv "$out/tmp" "$out/utf-16be-bom.xml"

# Labels that name a smaller set than the bytes use (WHATWG supersets): curly quotes in "ISO-8859-1", a traditional
# character (們, GBK only) in "GB2312".
feed latin1-label-cp1252-bytes ISO-8859-1 WINDOWS-1252 '“Quoted” text – with a dash'
feed gb2312-label-gbk-bytes    GB2312     GBK          '我們的世界'
# A UTF-8 byte order mark on a document whose declaration says ISO-8859-1: the mark wins.
feed utf8-bom-wrong-declaration ISO-8859-1 UTF-8 'Grüße aus Köln'
{ printf '\357\273\277'; cat "$out/utf8-bom-wrong-declaration.xml"; } > "$out/tmp" && mv "$out/tmp" "$out/utf8-bom-wrong-declaration.xml"
# No declaration of an encoding at all, Latin-1 bytes: only an HTTP charset (or the windows-1252 fallback) reads it.
printf '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>Café</title><item><title>Café crème</title></item></channel></rss>\n' \
  | iconv -f UTF-8 -t ISO-8859-1 > "$out/undeclared-latin1.xml"
# A declaration that lies (ISO-8859-1) about windows-1251 bytes: an HTTP charset says the truth.
feed cyrillic-declared-latin1 ISO-8859-1 WINDOWS-1251 'Привет, мир'
