"""9 Card Flush: a colour, 3 community cards, fold or Play, then 6 cards each; the flush
cards of the chosen colour in the 9, the 6 and the 3 settle every wager."""
