/** The name helpers the lint rules decide with (src/model/names.ts), each with exact expectations. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { camelCase, CLIENT_TYPE_NAMES, clientTypeNames, isPlural, leadingVerb, nameVerb, nounFix, pluralize, resourceName, singularize, unsafeReason } from "../../../src/model/names.js";

/** Applies `fn` to every key of `cases` and compares the results with the values, all at once. */
function table<T>(fn: (name: string) => T, cases: Record<string, T>): void {
  const actual = Object.fromEntries(Object.keys(cases).map((name) => [name, fn(name)]));
  assert.equal(actual, cases);
}

test("pluralize: regular, -y, sibilant, irregular and invariant nouns; only the last word, casing kept", () => {
  table(pluralize, {
    book: "books",
    key: "keys",
    day: "days",
    directory: "directories",
    box: "boxes",
    match: "matches",
    wish: "wishes",
    bus: "buses",
    address: "addresses",
    person: "people",
    child: "children",
    datum: "data",
    index: "indices",
    analysis: "analyses",
    people: "people",
    series: "series",
    fish: "fish",
    userAccount: "userAccounts",
    BookCopy: "BookCopies",
    movie: "movies",
    shelf: "shelves",
    leaf: "leaves",
    hero: "heroes",
    // Digits after the noun are a suffix: the noun is pluralized, not the number.
    ticket2: "tickets2",
    bookCopy2: "bookCopies2",
    // Not found on Object.prototype by the irregular-noun tables.
    constructor: "constructors",
  });
});

test("singularize: the inverse of pluralize, and leaves singulars alone", () => {
  table(singularize, {
    books: "book",
    days: "day",
    directories: "directory",
    Categories: "Category",
    boxes: "box",
    matches: "match",
    wishes: "wish",
    addresses: "address",
    buses: "bus",
    statuses: "status",
    houses: "house",
    people: "person",
    children: "child",
    data: "datum",
    indices: "index",
    analyses: "analysis",
    series: "series",
    news: "news",
    userAccounts: "userAccount",
    movies: "movie",
    shelves: "shelf",
    wolves: "wolf",
    quizzes: "quiz",
    tickets2: "ticket2",
    address: "address",
    bus: "bus",
    analysis: "analysis",
    constructor: "constructor",
  });
});

test("isPlural: judges the last word of a camelCase name", () => {
  table(isPlural, {
    books: true,
    userAccounts: true,
    addresses: true,
    people: true,
    children: true,
    data: true,
    analyses: true,
    series: true,
    news: true,
    movies: true,
    shelves: true,
    indices: true,
    tickets2: true,
    // Real APIs' collections: pluralize calls them plural, or has another word for their singular.
    fileMinis: true,
    awardEmojis: true,
    taxis: true,
    metadata: true,
    userData: true,
    criteria: true,
    mediaItems: true,
    book: false,
    fileMini: false,
    awardEmoji: false,
    taxi: false,
    status: false,
    movie: false,
    shelf: false,
    ticket2: false,
    person: false,
    datum: false,
    analysis: false,
    address: false,
    glass: false,
    bus: false,
    accountBook: false,
    constructor: false,
    "": false,
  });
});

test("resourceName: a short noun title camel-cased, else the collection's singular", () => {
  const named = (collection: string, title?: string) => resourceName(collection, title);
  assert.equal(
    {
      movies: named("movies"),
      shelves: named("shelves"),
      people: named("people"),
      indices: named("indices"),
      series: named("series"),
      tickets2: named("tickets2"),
      Movie: named("movies", "Movie"),
      "Library book": named("books", "Library book"),
      "  Library-book  ": named("books", "  Library-book  "),
      LibraryBook: named("books", "LibraryBook"),
      Cache: named("caches", "Cache"),
      // The collection's own name again says nothing about the singular.
      Movies: named("movies", "Movies"),
      // A sentence, a title in other characters, or one that would not be a safe name: the library decides.
      sentence: named("movies", "A film shown in our cinema"),
      accents: named("cafes", "Café"),
      punctuation: named("movies", "Movie (feature)"),
      digitFirst: named("movies", "3D movie"),
      prototype: named("things", "Constructor"),
      member: named("things", "to string"),
      // A type the client has of its own (Link, LinkInput) is the resource's all the same (clientTypeNames).
      clientType: named("weblinks", "Link"),
      clientInput: named("weblinks", "Link input"),
      empty: named("movies", ""),
    },
    {
      movies: "movie",
      shelves: "shelf",
      people: "person",
      indices: "index",
      series: "series",
      tickets2: "ticket2",
      Movie: "movie",
      "Library book": "libraryBook",
      "  Library-book  ": "libraryBook",
      LibraryBook: "libraryBook",
      Cache: "cache",
      Movies: "movie",
      sentence: "movie",
      accents: "cafe",
      punctuation: "movie",
      digitFirst: "movie",
      prototype: "thing",
      member: "thing",
      clientType: "link",
      clientInput: "linkInput",
      empty: "movie",
    },
  );
});

test("clientTypeNames: the client's own types keep their names unless a resource's type takes one; then Client<Name>, numbered while taken", () => {
  const free = clientTypeNames(new Set(["Book", "BookInput", "BookFields", "BookApi"]));
  for (const name of CLIENT_TYPE_NAMES) assert.is(free[name], name);
  const taken = clientTypeNames(new Set(["Link", "LinkInput", "LinkFields", "LinkApi", "Page", "ClientPage", "Client", "ApiError"]));
  assert.equal(
    { Link: taken.Link, LinkInput: taken.LinkInput, Page: taken.Page, Client: taken.Client, ApiError: taken.ApiError, Meta: taken.Meta, ClientOptions: taken.ClientOptions },
    { Link: "ClientLink", LinkInput: "ClientLinkInput", Page: "ClientPage2", Client: "ClientClient", ApiError: "ClientApiError", Meta: "Meta", ClientOptions: "ClientOptions" },
  );
  const names = Object.values(taken);
  assert.is(new Set(names).size, names.length, "every public name is one type's");
  for (const n of names) assert.not.ok(["Link", "LinkInput", "LinkFields", "LinkApi", "Page", "ClientPage", "Client", "ApiError"].includes(n), `${n} is a resource's`);
});

test("leadingVerb: the first word when it is a verb, else undefined", () => {
  table(leadingVerb, {
    getAccount: "get",
    createFolder: "create",
    updateGroup: "update",
    verifyEmail: "verify",
    searchGroupsByName: "search",
    listBooks: "list",
    get_books: "get",
    Get: "get",
    accounts: undefined,
    posts: undefined,
    settings: undefined,
    getaway: undefined,
    "": undefined,
  });
});

test("nameVerb: a word that is also a noun, in front of a plural noun, names a kind of thing; every other verb-led name is a verb", () => {
  table(nameVerb, {
    checkRuns: undefined,
    checkSuites: undefined,
    testClocks: undefined,
    testHelpersTestClocks: undefined,
    mergeRequests: undefined,
    uploadSessions: undefined,
    signRequests: undefined,
    addOns: undefined,
    getBooks: "get",
    listBooks: "list",
    updateFields: "update",
    searchGroupsByName: "search",
    searchResultsForAuthors: "search",
    checkRun: "check",
    check: "check",
    testCreateBooks: "test",
    createUserResponses: undefined,
    createCheckoutSessionResponses: undefined,
    exportRibListings: undefined,
    setDefaultPriorityRequests: undefined,
    createEntityResponseTypes: undefined,
    openAiFiles: undefined,
    showBases: undefined,
    checkRunWithSimpleCheckSuites: undefined,
    createUsers: "create",
    deleteResults: "delete",
    createUserForAccountResponses: "create",
    accounts: undefined,
  });
});

test("nounFix: the plural noun a verb-led name is about", () => {
  table(nounFix, {
    getAccount: "accounts",
    getBooks: "books",
    createFolder: "folders",
    updateGroup: "groups",
    verifyEmail: "emails",
    searchGroupsByName: "groups",
    listBooksForAuthor: "books",
    fetchPeople: "people",
    getUserAccounts: "userAccounts",
    get: "items",
  });
});

test("camelCase: from kebab, snake, Pascal, spaced and acronym forms", () => {
  table(camelCase, {
    "first-name": "firstName",
    first_name: "firstName",
    FirstName: "firstName",
    "user accounts": "userAccounts",
    HTTPServer: "httpServer",
    userID: "userId",
    URL: "url",
    already: "already",
    "1st": "1st",
    ["__proto__"]: "proto", // computed: a literal __proto__ key would set the prototype
    "": "",
  });
});

test("unsafeReason: only prototype keys, U+0000 and the empty name; every other JSON key is a property name (emitters quote it)", () => {
  table(unsafeReason, {
    ["__proto__"]: "would reach the object prototype",
    constructor: "would reach the object prototype",
    prototype: "would reach the object prototype",
    "a\u0000b": "holds the character U+0000, which the store cannot tell from the end of the name",
    "": 'is empty: an error about it would carry `property: ""`, which says that no property caused it',
    "+1": undefined,
    "-1": undefined,
    "16x16": undefined,
    "0": undefined,
    "user-name": undefined,
    "1st": undefined,
    _1: undefined,
    $: undefined,
    "é": undefined,
    "say \"hi\"": undefined,
    name: undefined,
    "first-name": undefined,
    user_id: undefined,
    HTTPServer: undefined,
  });
});

test.run();
