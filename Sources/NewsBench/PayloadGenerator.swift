import Foundation
import OfflineNewsModel

/// Writes a NewsAPI v2-shaped response (`{"status":"ok","totalResults":N,"articles":[…]}`) of `count` articles to a
/// file, streaming (the payload is never held in memory whole, so a 1M-article file costs the generator nothing).
///
/// The records look like the real captures in `shared/fixtures/real/`, in proportions chosen so that the average is
/// about 600 bytes per article:
/// - `author`: about 14 % `null`, 7 % `""`, 2 % a URL, else one to three names (Latin, Arabic or CJK);
/// - `title`, `description`, `content`: English, Arabic, Chinese, Japanese or accented European text, with emoji,
///   quotes that need escaping and, in long content, `\r\n`; `description` `null` or `""` in about 20 %;
/// - `content`: `null` in about 15 %, NewsAPI's truncated form (`…[+1234 chars]`, ~100–200 characters) in about
///   77 %, long text of 200–2,000 characters in the rest;
/// - `publishedAt`: `Z` (50 %), `+00:00` (20 %), 3-digit fraction (13 %), 7-digit fraction (13 %), another offset
///   such as `+05:30` (4 %);
/// - `urlToImage`: `null` in about 20 %;
/// - about 1 % of records repeat an earlier record's `url` (the later record wins), and 0.3 % are NewsAPI's
///   `[Removed]` placeholder.
struct PayloadGenerator {
  /// What was written.
  struct Summary: Codable, Sendable {
    var articles: Int
    var bytes: Int
    var duplicateURLs: Int
    var removedPlaceholders: Int
    var seed: UInt64
  }

  var count: Int
  var seed: UInt64

  func write(to path: String) throws -> Summary {
    guard let file = fopen(path, "wb") else {
      throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var writer = RecordWriter(seed: seed)
    var out: [UInt8] = []
    out.reserveCapacity(1 << 21)
    var bytes = 0
    func flush() throws {
      let written = out.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
      guard written == out.count else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
      bytes += out.count
      out.removeAll(keepingCapacity: true)
    }
    out.append(contentsOf: #"{"status":"ok","totalResults":"#.utf8)
    out.append(contentsOf: String(count).utf8)
    out.append(contentsOf: #","articles":["#.utf8)
    for index in 0..<count {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      writer.appendRecord(index: index, to: &out)
      if out.count >= 1 << 20 { try flush() }
    }
    out.append(contentsOf: "]}\n".utf8)
    try flush()
    return Summary(
      articles: count, bytes: bytes, duplicateURLs: writer.duplicates, removedPlaceholders: writer.removed, seed: seed)
  }
}

/// Generates one record at a time, appending its JSON to a byte buffer.
private struct RecordWriter {
  var random: SplitMix64
  var recentURLs: [[UInt8]] = []
  var duplicates = 0
  var removed = 0
  private var scratch: [UInt8] = []

  init(seed: UInt64) {
    random = SplitMix64(seed: seed)
    scratch.reserveCapacity(4096)
  }

  mutating func appendRecord(index: Int, to out: inout [UInt8]) {
    if random.chance(0.3) {
      removed += 1
      out.append(contentsOf: Pools.removedRecord)
      return
    }
    let language = Pools.pickLanguage(&random)
    let source = random.pick(Pools.sources)

    out.append(contentsOf: #"{"source":{"id":"#.utf8)
    if let id = source.id { appendString(id.utf8, to: &out) } else { out.append(contentsOf: Pools.null) }
    out.append(contentsOf: #","name":"#.utf8)
    appendString(source.name.utf8, to: &out)

    out.append(contentsOf: #"},"author":"#.utf8)
    appendAuthor(language: language, to: &out)

    out.append(contentsOf: #","title":"#.utf8)
    scratch.removeAll(keepingCapacity: true)
    appendText(language: language, bytes: 30...75, sentence: false)
    scratch.append(contentsOf: " - ".utf8)
    scratch.append(contentsOf: source.name.utf8)
    appendString(scratch, to: &out)

    out.append(contentsOf: #","description":"#.utf8)
    if random.chance(14) {
      out.append(contentsOf: Pools.null)
    } else if random.chance(7) {
      out.append(contentsOf: Pools.emptyString)
    } else {
      scratch.removeAll(keepingCapacity: true)
      appendText(language: language, bytes: 40...130, sentence: true)
      appendString(scratch, to: &out)
    }

    out.append(contentsOf: #","url":"#.utf8)
    let url = makeURL(index: index, source: source)
    appendString(url, to: &out)

    out.append(contentsOf: #","urlToImage":"#.utf8)
    if random.chance(20) {
      out.append(contentsOf: Pools.null)
    } else {
      scratch.removeAll(keepingCapacity: true)
      scratch.append(contentsOf: "https://cdn.".utf8)
      scratch.append(contentsOf: source.domain.utf8)
      scratch.append(contentsOf: "/images/".utf8)
      appendHex(random.next(), to: &scratch)
      scratch.append(contentsOf: ".jpg?w=1200".utf8)
      appendString(scratch, to: &out)
    }

    out.append(contentsOf: #","publishedAt":""#.utf8)
    appendDate(to: &out)
    out.append(UInt8(ascii: "\""))

    out.append(contentsOf: #","content":"#.utf8)
    let contentKind = random.int(0...99)
    if contentKind < 15 {
      out.append(contentsOf: Pools.null)
    } else if contentKind < 92 {
      scratch.removeAll(keepingCapacity: true)
      appendText(language: language, bytes: 80...180, sentence: true)
      scratch.append(contentsOf: "… [+".utf8)
      scratch.append(contentsOf: String(random.int(300...9000)).utf8)
      scratch.append(contentsOf: " chars]".utf8)
      appendString(scratch, to: &out)
    } else {
      scratch.removeAll(keepingCapacity: true)
      let target = random.int(200...2000)
      while scratch.count < target {
        appendText(language: language, bytes: 60...200, sentence: true)
        scratch.append(contentsOf: "\r\n".utf8)
      }
      appendString(scratch, to: &out)
    }
    out.append(UInt8(ascii: "}"))
  }

  private mutating func makeURL(index: Int, source: Pools.Source) -> [UInt8] {
    if !recentURLs.isEmpty, random.chance(1) {
      duplicates += 1
      return random.pick(recentURLs)
    }
    var url: [UInt8] = []
    url.reserveCapacity(96)
    url.append(contentsOf: "https://www.".utf8)
    url.append(contentsOf: source.domain.utf8)
    url.append(UInt8(ascii: "/"))
    url.append(contentsOf: random.pick(Pools.sections).utf8)
    url.append(UInt8(ascii: "/"))
    if random.chance(4) {
      // A percent-encoded non-ASCII slug, as Google News and Arabic sites send them.
      for _ in 0..<random.int(3...8) { url.append(contentsOf: random.pick(Pools.percentEncodedWords).utf8) }
    } else {
      for word in 0..<random.int(2...5) {
        if word > 0 { url.append(UInt8(ascii: "-")) }
        url.append(contentsOf: random.pick(Pools.english).utf8)
      }
    }
    url.append(UInt8(ascii: "-"))
    url.append(contentsOf: String(index, radix: 36).utf8)
    if recentURLs.count < 4096 {
      recentURLs.append(url)
    } else {
      recentURLs[random.int(0...4095)] = url
    }
    return url
  }

  private mutating func appendAuthor(language: Pools.Language, to out: inout [UInt8]) {
    let kind = random.int(0...99)
    if kind < 14 {
      out.append(contentsOf: Pools.null)
    } else if kind < 21 {
      out.append(contentsOf: Pools.emptyString)
    } else if kind < 23 {
      appendString("https://www.facebook.com/\(random.pick(Pools.english))".utf8, to: &out)
    } else {
      scratch.removeAll(keepingCapacity: true)
      let names = language == .arabic ? Pools.arabicNames : language == .cjk ? Pools.cjkNames : Pools.latinNames
      for person in 0..<random.int(1...3) {
        if person > 0 { scratch.append(contentsOf: ", ".utf8) }
        scratch.append(contentsOf: random.pick(names).utf8)
      }
      appendString(scratch, to: &out)
    }
  }

  /// Appends words of `language` to `scratch` until it has grown by a number of bytes in `bytes`.
  private mutating func appendText(language: Pools.Language, bytes: ClosedRange<Int>, sentence: Bool) {
    let start = scratch.count
    let target = start + random.int(bytes)
    let words = Pools.words(language)
    let separator: [UInt8] = language == .cjk ? [] : [UInt8(ascii: " ")]
    var first = true
    while scratch.count < target {
      if !first { scratch.append(contentsOf: separator) }
      first = false
      let roll = random.int(0...99)
      if roll < 2 {
        scratch.append(contentsOf: random.pick(Pools.emoji).utf8)
      } else if roll < 4 {
        scratch.append(UInt8(ascii: "\""))
        scratch.append(contentsOf: random.pick(words).utf8)
        scratch.append(UInt8(ascii: "\""))
      } else {
        scratch.append(contentsOf: random.pick(words).utf8)
      }
    }
    if sentence { scratch.append(contentsOf: (language == .cjk ? "。" : ".").utf8) }
  }

  /// Appends an RFC 3339 date-time between 2020 and 2025 in one of the shapes NewsAPI sends.
  private mutating func appendDate(to out: inout [UInt8]) {
    // 2020-01-01T00:00:00Z … 2026-01-01T00:00:00Z, in milliseconds.
    let ms = Int64(random.int(0...189_302_399_999)) + 1_577_836_800_000
    let shape = random.int(0...99)
    var offsetMinutes = 0
    if shape >= 96 { offsetMinutes = random.pick([330, 120, -300, 540, 180, -420]) }
    let local = ms + Int64(offsetMinutes) * 60_000
    let days = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
    let msOfDay = Int(local - days * 86_400_000)
    let (year, month, day) = Timestamp.civil(fromDays: days)
    appendPadded(Int(year), 4, to: &out)
    out.append(UInt8(ascii: "-"))
    appendPadded(Int(month), 2, to: &out)
    out.append(UInt8(ascii: "-"))
    appendPadded(Int(day), 2, to: &out)
    out.append(UInt8(ascii: "T"))
    appendPadded(msOfDay / 3_600_000, 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendPadded(msOfDay / 60_000 % 60, 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendPadded(msOfDay / 1000 % 60, 2, to: &out)
    switch shape {
    case 0..<50:
      out.append(UInt8(ascii: "Z"))
    case 50..<70:
      out.append(contentsOf: "+00:00".utf8)
    case 70..<83:
      out.append(UInt8(ascii: "."))
      appendPadded(msOfDay % 1000, 3, to: &out)
      out.append(UInt8(ascii: "Z"))
    case 83..<96:
      out.append(UInt8(ascii: "."))
      appendPadded(msOfDay % 1000 * 10_000 + random.int(0...9999), 7, to: &out)
      out.append(UInt8(ascii: "Z"))
    default:
      out.append(UInt8(ascii: offsetMinutes < 0 ? "-" : "+"))
      appendPadded(abs(offsetMinutes) / 60, 2, to: &out)
      out.append(UInt8(ascii: ":"))
      appendPadded(abs(offsetMinutes) % 60, 2, to: &out)
    }
  }

  private func appendPadded(_ value: Int, _ width: Int, to out: inout [UInt8]) {
    var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
    var rest = value
    var position = width - 1
    while position >= 0 {
      digits[position] = UInt8(ascii: "0") + UInt8(rest % 10)
      rest /= 10
      position -= 1
    }
    out.append(contentsOf: digits)
  }

  private func appendHex(_ value: UInt64, to out: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    var rest = value
    for _ in 0..<16 {
      out.append(hex[Int(rest & 0xF)])
      rest >>= 4
    }
  }
}

/// Appends `text` as a JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped, the
/// rest as raw UTF-8, as NewsAPI sends it.
private func appendString(_ text: some Sequence<UInt8>, to out: inout [UInt8]) {
  out.append(UInt8(ascii: "\""))
  for byte in text {
    switch byte {
    case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
    case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
    case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
    case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
    case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
    case 0..<0x20:
      let hex = Array("0123456789abcdef".utf8)
      out.append(contentsOf: "\\u00".utf8)
      out.append(hex[Int(byte >> 4)])
      out.append(hex[Int(byte & 0xF)])
    default: out.append(byte)
    }
  }
  out.append(UInt8(ascii: "\""))
}

/// The vocabularies the generator draws from.
private enum Pools {
  enum Language { case english, arabic, cjk, european }

  struct Source {
    var id: String?
    var name: String
    var domain: String
  }

  static let null = Array("null".utf8)
  static let emptyString = Array(#""""#.utf8)
  static let removedRecord = Array(
    #"""
    {"source":{"id":null,"name":"[Removed]"},"author":null,"title":"[Removed]","description":"[Removed]","url":"https://removed.com","urlToImage":null,"publishedAt":"1970-01-01T00:00:00Z","content":"[Removed]"}
    """#.utf8)

  static func pickLanguage(_ random: inout SplitMix64) -> Language {
    switch random.int(0...99) {
    case 0..<70: .english
    case 70..<80: .arabic
    case 80..<90: .cjk
    default: .european
    }
  }

  static func words(_ language: Language) -> [String] {
    switch language {
    case .english: english
    case .arabic: arabic
    case .cjk: cjk
    case .european: european
    }
  }

  static let sources: [Source] = [
    Source(id: "bbc-news", name: "BBC News", domain: "bbc.co.uk"),
    Source(id: "cnn", name: "CNN", domain: "cnn.com"),
    Source(id: "reuters", name: "Reuters", domain: "reuters.com"),
    Source(id: "associated-press", name: "Associated Press", domain: "apnews.com"),
    Source(id: "the-verge", name: "The Verge", domain: "theverge.com"),
    Source(id: "financial-times", name: "Financial Times", domain: "ft.com"),
    Source(id: "google-news", name: "Google News", domain: "news.google.com"),
    Source(id: "al-jazeera-english", name: "Al Jazeera English", domain: "aljazeera.com"),
    Source(id: "le-monde", name: "Le Monde", domain: "lemonde.fr"),
    Source(id: "die-zeit", name: "Die Zeit", domain: "zeit.de"),
    Source(id: nil, name: "New York Times", domain: "nytimes.com"),
    Source(id: nil, name: "CBS Sports", domain: "cbssports.com"),
    Source(id: nil, name: "Yallakora - يلاكورة", domain: "yallakora.com"),
    Source(id: nil, name: "Sky News Arabia سكاي نيوز عربية", domain: "skynewsarabia.com"),
    Source(id: nil, name: "朝日新聞デジタル", domain: "asahi.com"),
    Source(id: nil, name: "新浪新闻", domain: "sina.com.cn"),
    Source(id: nil, name: "Süddeutsche Zeitung", domain: "sueddeutsche.de"),
    Source(id: nil, name: "YouTube", domain: "youtube.com"),
    Source(id: nil, name: "[Removed]", domain: "removed.com"),
  ]

  static let sections = ["world", "business", "tech", "sport", "culture", "politics", "science", "2024/05/17"]

  static let english = """
    storm gusts forecast ferries cancelled minister says markets rally shares fall inflation data central bank rate \
    decision election results count voters turnout court ruling appeal police arrest suspect investigation fire \
    crews contain wildfire flood warning issued heavy rain snow airport delays strike union talks deal agreement \
    trade tariffs exports growth recession jobs report unemployment wages housing prices mortgage energy oil gas \
    climate summit emissions record heat drought harvest farmers health hospital vaccine outbreak study finds \
    researchers scientists space launch rocket satellite mission moon telescope discovery ancient fossil museum \
    film festival award winner album tour concert star dies aged legend tribute football league cup final coach \
    transfer injury season playoff championship team victory defeat match draw goal penalty referee stadium fans \
    company earnings profit revenue quarter chief executive layoffs startup funding acquisition merger software \
    update security breach hackers data privacy regulators fine app phone chip artificial intelligence model \
    school teachers students university tuition city council mayor budget transit rail bus bridge road crash \
    government opposition parliament vote bill law reform protest rally crowd capital president prime visit
    """.split(separator: " ").map(String.init)

  static let arabic = """
    تذكرتي تعلن طرح تذاكر مباراة مصر ومالاوي بتصفيات أمم أفريقيا بريطانيا ترد على بوتين بشأن ذخائر اليورانيوم \
    المنضب الحكومة وزير الاقتصاد الأسواق ارتفاع انخفاض الأسعار النفط الذهب الدولار البنك المركزي الفائدة \
    الانتخابات البرلمان الرئيس القمة العربية الأمطار الطقس العاصفة الرياضة الدوري كأس المنتخب اللاعب المدرب
    """.split(separator: " ").map(String.init)

  static let cjk = """
    东京 大阪 北京 上海 经济 市场 股市 上涨 下跌 政府 总理 首相 选举 投票 台风 地震 暴雨 警报 \
    科技 人工智能 芯片 公司 发布 新品 足球 比赛 冠军 电影 票房 新闻 速報 天気 予報 株価 円安 \
    政府 会見 発表 日本代表 試合 勝利 東京都 知事 選挙 結果 経済 対策 物価 上昇 観光客 増加
    """.split(separator: " ").map(String.init)

  static let european = """
    Élection présidentielle résultats Français économie marché Bourse hausse forte baisse prévue grève \
    cheminots météo orages Überschwemmung Bundesregierung Kanzler Mehrwertsteuer Münchener Rückversicherung \
    Zürich Genève Gewerkschaft Streik Lösung Straße Brücke Öffentlichkeit Fußball Meisterschaft España \
    niños año señor café crème brûlée naïve façade Kraków Łódź Gdańsk Ελλάδα οικονομία Москва новости
    """.split(separator: " ").map(String.init)

  static let emoji = ["🔥", "⚽", "📉", "📈", "🇺🇸", "🇬🇧", "👨‍👩‍👧", "🌧️", "😂", "✅", "🚀", "❤️"]

  static let latinNames = [
    "Jason Hanna", "Alanne Orjoux", "Keith Bradsher", "Ana Swanson", "David Jackson", "Sudiksha Kochi",
    "Paul Smith", "Natasha Gillezeau", "Hannah Wootton", "BBC News", "Reuters", "José Martínez", "Zoë Brontë",
    "François Dupont", "Jürgen Müller", "Siobhán O'Connor",
  ]
  static let arabicNames = [
    "Yallakora - يلاكورة", "سكاي نيوز عربية", "محمد عبد الله", "فاطمة الزهراء", "أحمد حسن", "Sky News Arabia",
  ]
  static let cjkNames = ["山田太郎", "佐藤花子", "王伟", "李娜", "NHK", "共同通信", "김민준"]

  static let percentEncodedWords = [
    "%D8%AA%D8%B0%D9%83%D8%B1%D8%AA%D9%8A-", "%D9%85%D8%A8%D8%A7%D8%B1%D8%A7%D8%A9-", "%E6%9D%B1%E4%BA%AC-",
    "%E7%BB%8F%E6%B5%8E-", "CBMi9QJodHRwczovL3d3dy55YWxsYWtvcmEuY29t", "%C3%A9lection-",
  ]
}
