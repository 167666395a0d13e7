// libcurl (Debian: libcurl4-openssl-dev), the HTTP client under OfflineNewsCurl's transport.
#include <curl/curl.h>

// Swift cannot call C variadic functions (curl_easy_setopt, curl_easy_getinfo): these static inline wrappers pass
// one argument of each type the transport sets or reads.

/// Sets a `long` option (CURLOPT_NOSIGNAL, CURLOPT_TIMEOUT_MS, …).
static inline CURLcode news_curl_set_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

/// Sets a string option (CURLOPT_URL, CURLOPT_ACCEPT_ENCODING, …); libcurl copies the text.
static inline CURLcode news_curl_set_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

/// Sets a pointer option (CURLOPT_HTTPHEADER's list, CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, …).
static inline CURLcode news_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

/// Sets CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION: both take `size_t (char *, size_t, size_t, void *)`.
static inline CURLcode news_curl_set_data_function(CURL *handle, CURLoption option,
                                                   size_t (*function)(char *, size_t, size_t, void *)) {
  return curl_easy_setopt(handle, option, function);
}

/// Sets CURLOPT_XFERINFOFUNCTION (and turns progress calls on): libcurl calls `function` with CURLOPT_XFERINFODATA
/// often while data moves and about once a second while it waits; a non-zero return aborts the transfer
/// (CURLE_ABORTED_BY_CALLBACK).
static inline CURLcode news_curl_set_progress_function(CURL *handle,
                                                       int (*function)(void *, curl_off_t, curl_off_t, curl_off_t,
                                                                       curl_off_t)) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
  if (code != CURLE_OK) return code;
  return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

/// Reads a `long` (CURLINFO_RESPONSE_CODE, CURLINFO_OS_ERRNO, …); 0 when libcurl cannot say.
static inline long news_curl_info_long(CURL *handle, CURLINFO info) {
  long value = 0;
  if (curl_easy_getinfo(handle, info, &value) != CURLE_OK) return 0;
  return value;
}

/// Reads a `curl_off_t` (CURLINFO_CONTENT_LENGTH_DOWNLOAD_T: -1 when no length was announced).
static inline curl_off_t news_curl_info_offset(CURL *handle, CURLINFO info) {
  curl_off_t value = -1;
  if (curl_easy_getinfo(handle, info, &value) != CURLE_OK) return -1;
  return value;
}
