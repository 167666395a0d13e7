import CSQLite
import Foundation

/// `offlinenews_rank(article_fts, k, w0, w1, …)`: FTS5's `bm25(article_fts, w0, w1, …)`, value for value, for every
/// row that can be among the `k` best of its query; `1` (above every `bm25()` value, which are at most 0) for a row
/// that cannot. `ORDER BY` it `LIMIT k` gives what `ORDER BY bm25(…) LIMIT k` gives, ties included, at a third of
/// the cost for common words.
///
/// What `bm25()` spends its time on is the length of each matching row (`xColumnSize`, a lookup in
/// `article_fts_docsize` per row: two thirds of a search for two words in 4 % of a million articles). The score
/// only falls as the row grows longer, so the score the row would have at its least possible length is an upper
/// bound: every column is at least as long as its last match reaches (its offsets). A row whose bound is below
/// the `k`-th best exact score seen so far cannot be among the `k` best (its exact score is lower still), and is not
/// looked up. Rows are visited in `rowid` order; the `k` best so far are kept in a heap. `k` of 0 or less computes
/// every row exactly.
///
/// The arithmetic is FTS5's (`fts5Bm25Function` in `fts5_aux.c`, SQLite 3.40): IDF
/// `log((N - n + 0.5) / (n + 0.5))` per phrase (at least 1e-6), with N the rows of the table and n those holding the
/// phrase (`xQueryPhrase`); `avgdl` the table's tokens over its rows; for each phrase, its instances weighted by
/// column, and `idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))` summed in phrase order with k1 = 1.2, b = 0.75, the
/// result negated. The same operations in the same order give the same doubles; `SearchRankingTests` compares the two
/// functions on every row of several corpora.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#custom_auxiliary_functions>,
/// <https://www.sqlite.org/fts5.html#the_bm25_function>
enum SearchRanking {
  static let functionName = "offlinenews_rank"
  /// What a row that cannot be among the `k` best gets: above every `bm25()` value.
  static let outranked = 1.0

  /// Registers ``functionName`` on `db` once (later calls do nothing).
  static func install(on db: Connection) throws(SQLiteError) {
    guard !db.hasSearchRanking else { return }
    var api: UnsafeMutablePointer<fts5_api>?
    let statement = try db.makeStatement("SELECT fts5(?1)")
    let rc = withUnsafeMutablePointer(to: &api) { pointer in
      sqlite3_bind_pointer(statement.handle, 1, pointer, "fts5_api_ptr", nil)
    }
    guard rc == SQLITE_OK else { throw db.error(rc, sql: "SELECT fts5(?1)") }
    _ = try statement.step()
    guard let api, let create = api.pointee.xCreateFunction else {
      throw SQLiteError(extendedCode: SQLITE_ERROR, message: "FTS5 is not available")
    }
    let created = create(api, functionName, nil, rank, nil)
    guard created == SQLITE_OK else {
      throw SQLiteError(extendedCode: created, message: "cannot create the FTS5 function \(functionName)")
    }
    db.hasSearchRanking = true
  }

  /// What one query computes once: as `fts5Bm25GetData`, plus the heap of the best exact scores.
  ///
  /// Its properties are used by one statement's rows one after the other, on the statement's thread, never two at
  /// once: `@exclusivity(unchecked)` leaves out the run-time exclusivity checks of class properties, which were a
  /// few per cent of a search's samples (they are done for every access, thousands of rows per query). The
  /// per-phrase and per-column numbers the function reads and writes for every row are fixed-size buffers of the
  /// query, not arrays: no uniqueness check or copy-on-write test per access (with the counting stop of
  /// ``queryData(_:_:count:values:)``, 21.1 → 19.9 ms of CPU for `news search "chars news"` at 100k articles).
  private final class QueryData {
    /// Per phrase: its IDF, its size in tokens, and this row's instances weighted by column.
    let idf: UnsafeMutableBufferPointer<Double>
    let phraseSizes: UnsafeMutableBufferPointer<Int32>
    let frequencies: UnsafeMutableBufferPointer<Double>
    /// Per column: its weight (the function's arguments after `k`; 1 for a column without one), and where this
    /// row's last match ends (tokens), a lower bound of the column's length.
    let weights: UnsafeMutableBufferPointer<Double>
    let reaches: UnsafeMutableBufferPointer<Int32>
    @exclusivity(unchecked) var avgdl = 0.0
    /// The similarities (−bm25) of the `k` best rows so far, smallest first (a binary min-heap).
    @exclusivity(unchecked) var best: [Double] = []
    /// The rows counted in ``best``: a row evaluated twice (the search's outer `WHERE` has SQLite do so for the
    /// rows it returns) counts once.
    @exclusivity(unchecked) var counted = Set<Int64>()
    /// The largest row in ``counted``: a row above it is not there, without hashing (rows come in `rowid` order).
    @exclusivity(unchecked) var largestCounted = Int64.min
    /// The last row given an exact value, and that value: SQLite evaluates the function again, right after, for
    /// each row the search's outer `WHERE` lets through, and the second time is answered from here.
    @exclusivity(unchecked) var lastExact: (rowid: Int64, value: Double)?
    let k: Int

    init(phrases: Int, columns: Int, k: Int) {
      idf = .allocate(capacity: phrases)
      idf.initialize(repeating: 0)
      phraseSizes = .allocate(capacity: phrases)
      phraseSizes.initialize(repeating: 1)
      frequencies = .allocate(capacity: phrases)
      frequencies.initialize(repeating: 0)
      weights = .allocate(capacity: columns)
      weights.initialize(repeating: 1)
      reaches = .allocate(capacity: columns)
      reaches.initialize(repeating: 0)
      self.k = k
      best.reserveCapacity(max(0, min(k, 4096)))
    }

    deinit {
      idf.deallocate()
      phraseSizes.deallocate()
      frequencies.deallocate()
      weights.deallocate()
      reaches.deallocate()
    }

    /// Whether row `rowid` was computed exactly before (and is in ``best`` if among the best).
    func isCounted(_ rowid: Int64) -> Bool { rowid <= largestCounted && counted.contains(rowid) }

    /// Whether a row whose similarity is at most `bound` cannot be among the `k` best.
    func isOutranked(_ bound: Double) -> Bool { k > 0 && best.count == k && bound < best[0] }

    /// Keeps the similarity of row `rowid` if it is among the `k` best so far.
    func keep(_ similarity: Double, rowid: Int64) {
      guard k > 0, counted.insert(rowid).inserted else { return }
      largestCounted = max(largestCounted, rowid)
      if best.count < k {
        best.append(similarity)
        var child = best.count - 1
        while child > 0 {
          let parent = (child - 1) / 2
          guard best[child] < best[parent] else { break }
          best.swapAt(child, parent)
          child = parent
        }
      } else if similarity > best[0] {
        best[0] = similarity
        var parent = 0
        while true {
          let left = 2 * parent + 1
          let right = left + 1
          var smallest = parent
          if left < best.count && best[left] < best[smallest] { smallest = left }
          if right < best.count && best[right] < best[smallest] { smallest = right }
          guard smallest != parent else { break }
          best.swapAt(parent, smallest)
          parent = smallest
        }
      }
    }
  }

  /// BM25's constants, as FTS5 has them.
  private static let k1 = 1.2
  private static let b = 0.75

  /// The sum over phrases of `idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))`, in FTS5's order of operations.
  private static func similarity(_ data: QueryData, length: Double) -> Double {
    var score = 0.0
    for index in 0..<data.idf.count {
      let frequency = data.frequencies[index]
      score += data.idf[index] * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / data.avgdl)))
    }
    return score
  }

  /// The function: arguments `k`, then the column weights (1 for a column without one).
  private static let rank: fts5_extension_function = { api, fts, context, count, values in
    guard let api, let fts else { return }
    do throws(FTS5Failure) {
      // The query's data is held by FTS5 (its auxiliary data) for as long as the statement runs: used unretained.
      let failure = try queryData(api, fts, count: count, values: values)._withUnsafeGuaranteedRef { data in
        do throws(FTS5Failure) {
          try evaluate(data, api, fts, context)
          return SQLITE_OK
        } catch {
          return error.code
        }
      }
      try check(failure)
    } catch {
      sqlite3_result_error_code(context, error.code)
    }
  }

  /// The row's value: `bm25()`'s, or ``outranked`` when its bound shows it cannot be among the `k` best.
  private static func evaluate(
    _ data: QueryData, _ api: UnsafePointer<Fts5ExtensionApi>, _ fts: OpaquePointer, _ context: OpaquePointer?
  ) throws(FTS5Failure) {
    let rowid = api.pointee.xRowid?(fts) ?? 0
    if let last = data.lastExact, last.rowid == rowid {
      sqlite3_result_double(context, last.value)
      return
    }
    let frequencies = data.frequencies
    let reaches = data.reaches
    let weights = data.weights
    let phraseSizes = data.phraseSizes
    frequencies.update(repeating: 0)
    reaches.update(repeating: 0)
    // Each phrase's instances, in the order `xInst` gives them within the phrase (its position list: column, then
    // offset), so each frequency is summed in `bm25()`'s order. `xPhraseFirst` reads the position list where
    // `xInstCount` first merges every phrase's into one sorted array (about 600 instructions a row).
    guard let first = api.pointee.xPhraseFirst, let next = api.pointee.xPhraseNext else {
      throw FTS5Failure(code: SQLITE_MISUSE)
    }
    var instances = Fts5PhraseIter()
    var column: Int32 = 0
    var offset: Int32 = 0
    for phrase in 0..<frequencies.count {
      try check(first(fts, Int32(phrase), &instances, &column, &offset))
      let size = phraseSizes[phrase]
      var frequency = frequencies[phrase]
      while column >= 0 {
        if Int(column) < weights.count {
          frequency += weights[Int(column)]
          reaches[Int(column)] = max(reaches[Int(column)], offset + size)
        } else {
          frequency += 1
        }
        next(fts, &instances, &column, &offset)
      }
      frequencies[phrase] = frequency
    }
    var least: Int32 = 0
    for reach in reaches { least += reach }
    if data.isOutranked(similarity(data, length: Double(least))), !data.isCounted(rowid) {
      sqlite3_result_double(context, outranked)
      return
    }
    var tokens: Int32 = 0
    try check(api.pointee.xColumnSize?(fts, -1, &tokens))
    let exact = similarity(data, length: Double(tokens))
    data.keep(exact, rowid: rowid)
    data.lastExact = (rowid, -1.0 * exact)
    sqlite3_result_double(context, -1.0 * exact)
  }

  private struct FTS5Failure: Error {
    var code: Int32
  }

  private static func check(_ rc: Int32?) throws(FTS5Failure) {
    guard let rc else { throw FTS5Failure(code: SQLITE_MISUSE) }
    guard rc == SQLITE_OK else { throw FTS5Failure(code: rc) }
  }

  /// The query's data, made at its first row and kept as the query's auxiliary data.
  ///
  /// The number of rows holding each phrase (`xQueryPhrase`, a pass over the phrase's whole doclist) is counted only
  /// up to half the table: from there on `log((N - n + 0.5) / (n + 0.5))` is at most 0, and the IDF is FTS5's floor
  /// 1e-6 whatever `n` is (a word in most articles, such as NewsAPI's `chars`, costs half its pass).
  private static func queryData(
    _ api: UnsafePointer<Fts5ExtensionApi>, _ fts: OpaquePointer, count: Int32,
    values: UnsafeMutablePointer<OpaquePointer?>?
  ) throws(FTS5Failure) -> Unmanaged<QueryData> {
    let functions = api.pointee
    if let raw = functions.xGetAuxdata?(fts, 0) { return Unmanaged<QueryData>.fromOpaque(raw) }
    guard let phraseCount = functions.xPhraseCount?(fts), let columnCount = functions.xColumnCount?(fts) else {
      throw FTS5Failure(code: SQLITE_MISUSE)
    }
    let data = QueryData(
      phrases: Int(max(0, phraseCount)), columns: Int(max(0, columnCount)),
      k: count > 0 ? Int(max(0, sqlite3_value_int64(values?[0]))) : 0)
    var rows: sqlite3_int64 = 0
    var tokens: sqlite3_int64 = 0
    try check(functions.xRowCount?(fts, &rows))
    try check(functions.xColumnTotalSize?(fts, -1, &tokens))
    data.avgdl = Double(tokens) / Double(rows)
    for phrase in 0..<phraseCount {
      // The count, then the half of the table (rounded up) past which the IDF is the floor whatever the count.
      var counter: (hits: sqlite3_int64, half: sqlite3_int64) = (0, (rows + 1) / 2)
      try withUnsafeMutablePointer(to: &counter) { pointer throws(FTS5Failure) in
        try check(
          functions.xQueryPhrase?(fts, phrase, pointer) { _, _, raw in
            guard let counter = raw?.assumingMemoryBound(to: (hits: sqlite3_int64, half: sqlite3_int64).self)
            else { return SQLITE_MISUSE }
            counter.pointee.hits += 1
            // SQLITE_DONE ends the pass, and xQueryPhrase returns SQLITE_OK.
            return counter.pointee.hits >= counter.pointee.half ? SQLITE_DONE : SQLITE_OK
          })
      }
      let hits = counter.hits
      var idf = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
      if idf <= 0.0 { idf = 1e-6 }
      data.idf[Int(phrase)] = idf
      data.phraseSizes[Int(phrase)] = functions.xPhraseSize?(fts, phrase) ?? 1
    }
    // Weights follow k: argument 1 + column.
    for column in 0..<Int(max(0, columnCount)) where Int32(column) < count - 1 {
      data.weights[column] = sqlite3_value_double(values?[column + 1])
    }
    let retained = Unmanaged.passRetained(data)
    // On failure FTS5 calls the destructor itself.
    try check(
      functions.xSetAuxdata?(fts, retained.toOpaque()) { raw in
        if let raw { Unmanaged<QueryData>.fromOpaque(raw).release() }
      })
    return retained
  }
}
