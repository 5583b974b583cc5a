Feature: The web view
  herd serves a web page at /ui/ on its API listener, and a browser that
  opens herd's address is sent there. The page holds no data of its own:
  it asks for a token, keeps it for the tab's session, and reads and acts
  through the API as that user. So the page and its assets load without
  a token, the fleet's data does not, and what a user may do from the
  page is what the user may do through the API.

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And herd requires bearer tokens from a token file:
      | token        | user  | uid | groups       |
      | admin-secret | alice | 1   | herd:admins  |
      | viewer-pass  | bob   | 2   | herd:viewers |
    And node "n1" has registered and is Ready

  Scenario: A browser is sent to the page, which loads without a token; the data does not
    Given the requests carry no token
    When a browser opens "/"
    Then it is sent to "/ui/"
    When a browser opens "/ui/"
    Then it gets the web view's page
    When a browser opens "/api/v1/nodes"
    Then the request fails with 401 Unauthorized

  Scenario: A drain a viewer sends from the page anyway is refused and changes nothing
    Given the requests come from "bob"
    When an operator drains "n1"
    Then the request fails with 403 Forbidden
    And nothing was added to the log
    And node "n1" is schedulable
