export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchOptions {
  signal: AbortSignal;
  /** Results wanted at most; a backend may return fewer. */
  limit: number;
}

/** A web search engine web_search asks. Implementations throw SearchBackendError when they fail. */
export interface SearchBackend {
  /** Names the engine in messages ("SearXNG"). */
  readonly name: string;
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
}
