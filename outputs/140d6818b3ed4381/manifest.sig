ÊÈl%¦p§fäºoÉLN¬óÛ˜°wWìÙªä6WL(´YS‰ÏžN
ÿ'So¹‚UhXÄ×úˆÙÒ“s