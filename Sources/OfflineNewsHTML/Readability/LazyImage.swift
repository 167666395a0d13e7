/// What lazy-loading scripts leave in a page without them: the real address of an image kept in an attribute of
/// their own, a placeholder in `src`. Beyond Readability.js's `_fixLazyImages` (which copies only attributes whose
/// value ends in `.jpg`, `.jpeg`, `.png` or `.webp`), these rules read the attributes the lazy loaders name, whatever
/// their value's extension, as the reader-view trackers report them: `data-src` holding an extensionless CDN URL
/// (WeChat's `…/640?wx_fmt=gif`: andreskrey/readability.php#69; the Los Angeles Times: mozilla/readability#748),
/// `data-lazy-src` (WordPress lazy-load plugins), `data-original` (jQuery lazyload), `data-actualsrc` (WeChat), a
/// 1×1 GIF or PNG `data:` URI as the placeholder (karakeep-app/karakeep#2556, kepano/defuddle#327), `data-srcset`
/// on a `<picture>`'s `<source>`.
enum LazyImage {
  /// The attributes lazy loaders keep an image's address in, by how often the trackers report them.
  static let sourceAttributes = [
    "data-src", "data-lazy-src", "data-original", "data-original-src", "data-actualsrc", "data-lazyload",
    "data-lazy", "data-img-src", "data-hi-res-src",
  ]
  /// The attributes lazy loaders keep a `srcset` in.
  static let srcsetAttributes = ["data-srcset", "data-lazy-srcset", "data-original-srcset"]

  /// Words of the file names of placeholder images (`blank.gif`, `spacer.gif`, `lazy-placeholder.png`, `1x1.png`).
  private static let placeholderWords = [
    "placeholder", "blank", "spacer", "pixel", "transparent", "lazy", "loading", "1x1", "empty", "grey.gif",
    "gray.gif",
  ]

  /// Whether `src` of `image` is no image of its own: absent or empty, `#`, `about:blank`, a `data:` URI, an image
  /// declared 1 × 1 (or smaller), or a file named as a placeholder.
  static func isPlaceholder(_ src: String?, of image: RawNode) -> Bool {
    let value = JSString.trim(src ?? "")
    let lowered = value.lowercased()
    if value.isEmpty || value == "#" || lowered == "about:blank" || lowered.hasPrefix("data:") { return true }
    if let width = image.attribute("width"), let height = image.attribute("height"),
      let w = Int(JSString.trim(width)), let h = Int(JSString.trim(height)), w <= 1, h <= 1
    {
      return true
    }
    let path = lowered.split(separator: "?", maxSplits: 1).first ?? ""
    let name = path.split(separator: "/").last.map(String.init) ?? ""
    return placeholderWords.contains { name.contains($0) }
  }

  /// Whether `srcset` holds no candidate: absent, empty, `null` (as some loaders write it) or a `data:` URI.
  static func isEmptySrcset(_ srcset: String?) -> Bool {
    let value = JSString.trim(srcset ?? "")
    return value.isEmpty || value == "null" || value.lowercased().hasPrefix("data:")
  }

  /// The first of `names` that `element` has with an address in it (no `data:` URI, no white space inside for a
  /// single address), or `nil`.
  static func firstAddress(of element: RawNode, in names: [String], list: Bool) -> String? {
    for name in names {
      guard let raw = element.attribute(name) else { continue }
      let value = JSString.trim(raw)
      if value.isEmpty || value == "null" || value.lowercased().hasPrefix("data:") { continue }
      if !list, value.unicodeScalars.contains(where: JSString.isWhitespace) { continue }
      return value
    }
    return nil
  }

  /// Puts the address a lazy loader kept in `element` (an `<img>`, or a `<picture>`'s `<source>`) where a browser
  /// without scripts reads it: `src` when it is a placeholder (``isPlaceholder(_:of:)``; `<img>` only), `srcset` when
  /// it has no candidate. Returns whether it changed anything.
  @discardableResult
  static func promote(_ element: RawNode) -> Bool {
    var changed = false
    if element.isElement("img"), isPlaceholder(element.attribute("src"), of: element),
      let address = firstAddress(of: element, in: sourceAttributes, list: false)
    {
      element.setAttribute("src", address)
      changed = true
    }
    if isEmptySrcset(element.attribute("srcset")), let set = firstAddress(of: element, in: srcsetAttributes, list: true)
    {
      element.setAttribute("srcset", set)
      changed = true
    } else if element.isElement("source"), let srcset = element.attribute("srcset"), isEmptySrcset(srcset) {
      element.removeAttribute("srcset")
    }
    return changed
  }
}
