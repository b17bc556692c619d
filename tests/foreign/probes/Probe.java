// One GET per argument ("name=url") with java.net.http.HttpClient, each failure printed the way Java MCP servers turn
// it into a tool error: "java/<name>" is e.toString(), "java_chain/<name>" adds each cause as a "Caused by: " line
// (printStackTrace's lines without the frames). One JSON object on stdout. argv: timeout_ms name=url ...
// The timeout is the request's own (HttpRequest.Builder.timeout). HttpClient does not fail on a status: a status >= 400
// becomes new IOException("Unexpected response code: " + code), the usual wrapper (it has no reason phrase).
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

public class Probe {
    static String json(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[0]);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(ms)).build();
        Map<String, String> out = new TreeMap<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i].substring(0, args[i].indexOf('='));
            String url = args[i].substring(args[i].indexOf('=') + 1);
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(ms)).GET().build();
            all.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((response, failure) -> {
                Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                if (e == null && response.statusCode() >= 400) e = new IOException("Unexpected response code: " + response.statusCode());
                synchronized (out) {
                    out.put("java/" + name, e == null ? null : e.toString());
                    StringBuilder chain = new StringBuilder();
                    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                        chain.append(t == e ? "" : "\nCaused by: ").append(t.toString());
                    }
                    out.put("java_chain/" + name, e == null ? null : chain.toString());
                }
                return null;
            }));
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).join();
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, String> entry : out.entrySet()) {
            if (b.length() > 1) b.append(", ");
            b.append(json(entry.getKey())).append(": ").append(json(entry.getValue()));
        }
        System.out.println(b.append('}'));
    }
}
