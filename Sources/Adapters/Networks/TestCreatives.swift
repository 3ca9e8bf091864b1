/// The test network's creatives, shipped inside the binary (a daemon installed alone has no
/// resource directory): small solid PNGs, base64.
enum TestCreatives {
    struct Image {
        let name: String
        let width: Int
        let height: Int
        let base64: String

        var url: String { "https://test-ads.secure-signals.invalid/\(name).png" }
    }

    static let icon = Image(
        name: "icon", width: 64, height: 64,
        base64:
            "iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAT0lEQVR42u3PQQkAAAgEsMtmNxsbwAi+hcEKLNXzWgQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQELgs1TrGWmASb9QAAAABJRU5ErkJggg=="
    )
    static let landscape = Image(
        name: "landscape", width: 191, height: 100,
        base64:
            "iVBORw0KGgoAAAANSUhEUgAAAL8AAABkCAIAAABYcXa9AAAAyElEQVR42u3SQQ0AAAjEsBOFE0wiEw/wbVIFy1LTcBMJcA/uwT24B9yDe3AP7gH34B7cg3twD7gH9+Ae3APuwT24B/fgHnAP7sE9uAfcg3twD+7BPeAe3IN7cA+4B/fgHtyDe1TAPbgH9+AecA/uwT24B9yDe3AP7sE94B7cg3twD7gH9+Ae3IN7wD24B/fgHnAP7sE9uAf3gHtwD+7BPeAe3IN7cA/uAffgHtyDe8A9uAf34B5wD+7BPbgH94B7cA/uwT3gHt4WZ7hTzeyNF7UAAAAASUVORK5CYII="
    )
    static let portrait = Image(
        name: "portrait", width: 100, height: 150,
        base64:
            "iVBORw0KGgoAAAANSUhEUgAAAGQAAACWCAIAAACn2roRAAAA40lEQVR42u3QMQ0AAAgDsD34N4QzHixwkyZV0EwXR1EgS5YsWbJkKZAlS5YsWbIUyJIlS5YsWQpkyZIlS5YsBbJkyZIlS5YCWbJkyZIlS4EsWbJkyZKlQJYsWbJkyVIgS5YsWbJkKZAlS5YsWbIUyJIlS5YsWQpkyZIlS5YsBbJkyZIlS5YCWbJkyZIlS4EsWbJkyZKlQJYsWbJkyVIgS5YsWbJkKZAlS5YsWbIUyJIlS5YsWQpkyZIlS5YsBbJkyZIlS5YCWbJkyZIlS4EsWbJkyZKlQJYsWbJkyVIgS5YsWT8thdGljIhJgpcAAAAASUVORK5CYII="
    )
    static let adChoices = Image(
        name: "adchoices", width: 16, height: 16,
        base64:
            "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFElEQVR42mOoIBEwjGoY1TB8NQAAY1loEPYsh7UAAAAASUVORK5CYII="
    )
}
