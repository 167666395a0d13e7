/// What a reader view shows of a web page: its metadata, the article as cleaned HTML, and the article as text.
///
/// Made by ``ReadabilityExtractor``. The fields are those of Mozilla Readability's `parse()` result, with the same
/// meaning; values the page does not give are `nil`.
public struct ReadableArticle: Sendable, Equatable, Codable {
  /// The article's title: JSON-LD `name`/`headline`, else `dc:title`, `og:title`, `twitter:title` and the like,
  /// else the document's `<title>` with the site name cut off (`"Story - Site"` → `"Story"`); `""` without any.
  public var title: String
  /// The author line: JSON-LD `author.name` (authors joined with `", "`), else `<meta name="author">` and the
  /// like, else the text of an element marked as a byline (`rel="author"`, `itemprop="author"`, class `byline`).
  public var byline: String?
  /// The publication time as the page writes it (JSON-LD `datePublished`, else `article:published_time`), not
  /// parsed: pages use RFC 3339, ISO 8601 without an offset and other forms.
  public var publishedTime: String?
  /// The site's name: JSON-LD `publisher.name`, else `og:site_name`.
  public var siteName: String?
  /// A short summary: JSON-LD `description`, else `og:description`, `<meta name="description">` and the like,
  /// else the text of the article's first paragraph.
  public var excerpt: String?
  /// The page's language: the `lang` attribute of `<html>` (a BCP 47 tag such as `"en-us"`, `"pt-BR"`).
  public var lang: String?
  /// The text direction of the article: the `dir` attribute (`"ltr"`, `"rtl"`) nearest above the content.
  public var dir: String?
  /// The article as HTML: one `<div id="readability-page-1" class="page">` holding paragraphs, headings, lists,
  /// quotes, figures, tables, links and images, without scripts, styles, forms or classes, with link and image
  /// URLs made absolute against the page's base URL (`<base href>`, else the URL it was read from).
  public var content: String
  /// The article as plain text (`HTMLTextRenderer/text(of:)-(HTMLNode)`): blocks apart by blank lines, no markup.
  public var text: String

  /// An article from its parts, as ``ReadabilityExtractor`` makes it.
  package init(
    title: String, byline: String?, publishedTime: String?, siteName: String?, excerpt: String?, lang: String?,
    dir: String?, content: String, text: String
  ) {
    self.title = title
    self.byline = byline
    self.publishedTime = publishedTime
    self.siteName = siteName
    self.excerpt = excerpt
    self.lang = lang
    self.dir = dir
    self.content = content
    self.text = text
  }
}
