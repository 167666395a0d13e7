import CMicroHTTPD
import OfflineNewsHTTP

// The server transport over GNU libmicrohttpd: to be written (issue 28). It turns each request libmicrohttpd has
// parsed into a ServerRequest, calls the ServerHandler and sends its ServerResponse, within ServerLimits.
