// floorgate's own start-up script for GraphiQL (not vendored): a file rather than an
// inline <script>, so the page's Content-Security-Policy can say script-src 'self'.
// Its settings come from the page's JSON data block, which is data and never runs.
"use strict";
(function () {
  const config = JSON.parse(
    document.getElementById("floorgate-graphiql-config").textContent,
  );

  // Earlier versions of this page kept the Headers editor, API key included, in
  // localStorage ("graphiql:headers", the tabs in "graphiql:tabState" and the history in
  // "graphiql:queries"), where any script of this origin could read it. Forget it.
  function forgetStoredHeaders() {
    localStorage.removeItem("graphiql:shouldPersistHeaders");
    ownKeys().forEach(function (name) {
      storage.setItem(name, localStorage.getItem(name));
    });
  }

  // What GraphiQL stores goes through here. GraphiQL 3.8.3 saves the headers of every
  // query it runs in its history ("graphiql:queries"), whatever shouldPersistHeaders
  // says; so any "headers" value in what it stores is replaced by the key-less template
  // (null stays null), and "graphiql:headers" is never written.
  function withoutHeaders(name, value) {
    if (name === "graphiql:headers") {
      return null;
    }
    try {
      return JSON.stringify(JSON.parse(value), function (key, item) {
        return key === "headers" && item !== null ? config.defaultHeaders : item;
      });
    } catch (error) {
      return value; // not JSON: a query, a theme name
    }
  }

  function ownKeys() {
    return Object.keys(localStorage).filter(function (name) {
      return name.indexOf("graphiql:") === 0;
    });
  }

  const storage = {
    getItem: function (name) {
      return localStorage.getItem(name);
    },
    setItem: function (name, value) {
      const kept = withoutHeaders(name, value);
      if (kept === null) {
        localStorage.removeItem(name);
      } else {
        localStorage.setItem(name, kept);
      }
    },
    removeItem: function (name) {
      localStorage.removeItem(name);
    },
    get length() {
      return ownKeys().length;
    },
    clear: function () {
      ownKeys().forEach(function (name) {
        localStorage.removeItem(name);
      });
    },
  };

  // Query and variables can be shared through the URL. Headers deliberately
  // cannot: they carry the API key, which must not end up in links or history.
  const parameters = {};

  for (const entry of window.location.search.slice(1).split("&")) {
    const eq = entry.indexOf("=");
    if (eq >= 0) {
      parameters[decodeURIComponent(entry.slice(0, eq))] = decodeURIComponent(
        entry.slice(eq + 1),
      );
    }
  }

  function updateURL(data) {
    Object.assign(parameters, data);
    const newSearch =
      "?" +
      Object.keys(parameters)
        .filter(function (key) {
          return key !== "headers" && Boolean(parameters[key]);
        })
        .map(function (key) {
          return encodeURIComponent(key) + "=" + encodeURIComponent(parameters[key]);
        })
        .join("&");
    history.replaceState(null, null, newSearch);
  }

  // POST JSON to the same-origin endpoint; headers come from the Headers editor.
  const fetcher = GraphiQL.createFetcher({
    url: new URL(config.endpoint, window.location.href).toString(),
  });

  function FloorgateGraphiQL() {
    const [query, setQuery] = React.useState(parameters.q || config.welcomeQuery);
    const [variables, setVariables] = React.useState(parameters.variables);

    function onEditQuery(newQuery) {
      setQuery(newQuery);
      updateURL({ q: newQuery });
    }

    function onEditVariables(newVariables) {
      setVariables(newVariables);
      updateURL({ variables: newVariables });
    }

    const explorerPlugin = GraphiQLPluginExplorer.explorerPlugin();

    return React.createElement(
      GraphiQL,
      {
        fetcher: fetcher,
        defaultEditorToolsVisibility: "headers",
        plugins: [explorerPlugin],
        query: query,
        variables: variables,
        defaultHeaders: config.defaultHeaders,
        onEditQuery: onEditQuery,
        onEditVariables: onEditVariables,
        inputValueDeprecation: true,
        isHeadersEditorEnabled: true,
        shouldPersistHeaders: false, // the API key never reaches localStorage
        storage: storage,
      },
      React.createElement(
        GraphiQL.Footer,
        null,
        React.createElement("p", { className: "floorgate-key-help" }, config.keyHelp),
      ),
    );
  }

  forgetStoredHeaders();
  const root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(React.createElement(FloorgateGraphiQL));
})();
