# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: error: no @loomc.launch function
# blank lines, spaces, tabs and form feeds only

   
	

  	  
