"""High Card Flush and its variants (the owner's tables, Hollywood Casino Toledo's, New
Hampshire's Flush Poker): 7 cards each against the dealer's 7, fold or raise by the
length of the flush, two bonus wagers on the player's own cards."""
