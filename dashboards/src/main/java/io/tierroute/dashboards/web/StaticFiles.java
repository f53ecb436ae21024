package io.tierroute.dashboards.web;

import io.tierroute.dashboards.control.ControlText;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/**
 * The page and its files as the API's rules have them: they answer GET and HEAD, any other method is a JSON 405 with
 * {@code Allow: GET, HEAD}, and a directory is a JSON 404. Undertow's {@code ResourceHandler} alone served the page to
 * a POST, advertised POST in its 405s, answered PATCH with a bare 501 and a directory with a bare 403.
 */
final class StaticFiles implements HttpHandler {

    private final HttpHandler files;
    private final HttpHandler notFound;

    StaticFiles(HttpHandler files, HttpHandler notFound) {
        this.files = files;
        this.notFound = notFound;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        String method = ex.getRequestMethod().toString();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            ex.getResponseHeaders().put(Headers.ALLOW, "GET, HEAD");
            String path = ControlText.printable(ex.getRequestPath());
            JsonIo.error(ex, 405, method + " is not allowed on " + (path.length() > 200 ? path.substring(0, 200) + "…"
                    : path) + "; use GET");
            return;
        }
        String relative = ex.getRelativePath();
        if (relative.endsWith("/") && !ex.getRequestPath().equals("/")) { // no listing: nothing to show there
            notFound.handleRequest(ex);
            return;
        }
        files.handleRequest(ex);
    }
}
